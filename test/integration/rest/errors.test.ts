// Every REST failure answers the spec's error body with its exact status and code, in French, never a stack trace.
import { request } from 'node:http';
import { expect } from 'chai';
import { startTestService, type TestService } from '../../helpers/service.js';

const LEAK = /(\bat \S+:\d+|node_modules|\/work\/|\.ts:\d|select |insert |SQLITE|knex)/i;

function expectErrorBody(json: any, code: string): void {
  expect(json).to.have.keys('error', 'api_contract_version');
  expect(json.api_contract_version).to.equal('3.0.0');
  expect(json.error.code).to.equal(code);
  expect(json.error.message).to.be.a('string').and.not.match(LEAK);
}

/** Sends the headers and part of a body, then waits; resolves with status and body. */
function partialBody(url: string, token: string, path: string, declaredLength: number, sent: string): Promise<{ status: number; json: any }> {
  return new Promise((resolve, reject) => {
    const headers = { 'content-type': 'application/json', 'content-length': declaredLength, authorization: `Bearer ${token}` };
    const req = request(`${url}${path}`, { method: 'POST', headers }, (res) => {
      let data = '';
      res.on('data', (c) => (data += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, json: JSON.parse(data) }));
    });
    req.on('error', reject);
    req.write(sent);
  });
}

describe('REST errors', () => {
  let svc: TestService;
  before(async () => {
    svc = await startTestService();
  });
  after(async () => svc.close());

  const argumentCases: { name: string; operation: string; body: unknown; message: RegExp }[] = [
    { name: 'unknown property', operation: 'referentiels.naf', body: { prefix: '43', couleur: 'bleu' }, message: /Argument inconnu : « couleur »/ },
    { name: 'unknown property on an operation without arguments', operation: 'referentiels.sources', body: { a: 1 }, message: /« a »/ },
    { name: 'wrong type', operation: 'aide.outil', body: { nom: 5 }, message: /« nom » doit être une chaîne de caractères/ },
    { name: 'missing required', operation: 'aide.outil', body: {}, message: /Argument manquant : « nom » est obligatoire/ },
    { name: 'too long', operation: 'aide.outil', body: { nom: 'x'.repeat(101) }, message: /« nom » est trop long : 100 caractères au plus/ },
    { name: 'too short', operation: 'referentiels.naf', body: { query: 'a' }, message: /« query » est trop court/ },
    { name: 'outside an enumeration', operation: 'referentiels.departements', body: { region: '99' }, message: /« region » doit valoir l'une de ces valeurs : 11, 24/ },
    { name: 'wrong format', operation: 'referentiels.cpv', body: { prefix: '99' }, message: /« prefix » n'a pas le format attendu/ },
  ];
  for (const c of argumentCases) {
    it(`400 invalid_arguments naming the argument: ${c.name}`, async () => {
      const { status, json } = await svc.rest(c.operation, c.body);
      expect(status).to.equal(400);
      expectErrorBody(json, 'invalid_arguments');
      expect(json.error.message).to.match(c.message);
    });
  }

  it('400 invalid_json for an unreadable body, and for an empty one', async () => {
    const bad = await svc.rest('referentiels.sources', '{"a":');
    expect(bad.status).to.equal(400);
    expectErrorBody(bad.json, 'invalid_json');
    const empty = await svc.rest('referentiels.sources', '');
    expect(empty.status).to.equal(400);
    expectErrorBody(empty.json, 'invalid_json');
  });

  it('400 invalid_body when the JSON is not an object', async () => {
    const { status, json } = await svc.rest('referentiels.sources', '[1,2]');
    expect(status).to.equal(400);
    expectErrorBody(json, 'invalid_body');
  });

  it('404 not_found for an unknown operation, and for the bare prefix', async () => {
    const { status, json } = await svc.rest('marches.inexistant', {});
    expect(status).to.equal(404);
    expectErrorBody(json, 'not_found');
    expect(json.error.message).to.include('marches.inexistant');
    const bare = await fetch(`${svc.url}/api/mcp/v1`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(bare.status).to.equal(404);
  });

  it('405 method_not_allowed with Allow for any other method', async () => {
    for (const method of ['GET', 'PUT', 'DELETE', 'PATCH']) {
      const res = await fetch(`${svc.url}/api/mcp/v1/referentiels.sources`, { method });
      expect(res.status, method).to.equal(405);
      expect(res.headers.get('allow')).to.equal('POST');
      expectErrorBody(await res.json(), 'method_not_allowed');
    }
  });

  it('415 unsupported_media_type when the body is not declared JSON', async () => {
    const plain = await svc.rest('referentiels.sources', '{}', { init: { headers: { 'content-type': 'text/plain' } } });
    expect(plain.status).to.equal(415);
    expectErrorBody(plain.json, 'unsupported_media_type');
    const none = await fetch(`${svc.url}/api/mcp/v1/referentiels.sources`, { method: 'POST', headers: { authorization: `Bearer ${svc.token}` }, body: new Uint8Array(Buffer.from('{}')) });
    expect(none.status).to.equal(415);
  });

  it('413 invalid_body over 3 MiB, declared or streamed', async () => {
    const big = JSON.stringify({ nom: 'x'.repeat(3 * 1024 * 1024) });
    const { status, json } = await svc.rest('aide.outil', big);
    expect(status).to.equal(413);
    expectErrorBody(json, 'invalid_body');
  });

  it('a body just under 3 MiB is read (then refused for its argument, not its size)', async () => {
    const body = JSON.stringify({ nom: 'x'.repeat(3 * 1024 * 1024 - 20) });
    const { status, json } = await svc.rest('aide.outil', body);
    expect(status).to.equal(400);
    expect(json.error.code).to.equal('invalid_arguments');
  });

  it('carries no stack trace, SQL or path in any error', async () => {
    const { json } = await svc.rest('aide.outil', { nom: 'inconnu' });
    expectErrorBody(json, 'not_found');
  });
});

describe('REST time limits', () => {
  let svc: TestService;
  before(async () => {
    svc = await startTestService({
      limits: { bodyTimeoutMs: 300, operationTimeoutMs: 300 },
      wrapRegistry: (registry) => ({
        ...registry,
        // A handler slower than the operation limit, to prove the 504.
        'referentiels.regions': async (args, caller) => {
          await new Promise((r) => setTimeout(r, 1000));
          return registry['referentiels.regions'](args, caller);
        },
      }),
    });
  });
  after(async () => svc.close());

  it('408 invalid_body when the body has not arrived in time', async () => {
    const { status, json } = await partialBody(svc.url, svc.token, '/api/mcp/v1/referentiels.sources', 100, '{"a":');
    expect(status).to.equal(408);
    expectErrorBody(json, 'invalid_body');
  });

  it('504 timeout when the operation runs past its limit', async () => {
    const { status, json } = await svc.rest('referentiels.regions', {});
    expect(status).to.equal(504);
    expectErrorBody(json, 'timeout');
    expect(json.error.message).to.match(/vérifier/);
  });
});

describe('REST when the database does not answer', () => {
  let svc: TestService;
  before(async () => {
    svc = await startTestService();
    await svc.db.destroy();
  });
  after(async () => svc.close().catch(() => undefined));

  it('503 unavailable with Retry-After, and /healthz says so', async () => {
    const { status, headers, json } = await svc.rest('referentiels.sources', {});
    expect(status).to.equal(503);
    expectErrorBody(json, 'unavailable');
    expect(headers.get('retry-after')).to.match(/^\d+$/);
    expect(json.error.retry_after_seconds).to.equal(Number(headers.get('retry-after')));
    const health = await fetch(`${svc.url}/healthz`);
    expect(health.status).to.equal(503);
  });
});
