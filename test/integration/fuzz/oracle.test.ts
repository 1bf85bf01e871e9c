// The fuzzer itself: a seed draws the same requests every time, and its oracle expects from the contract what the service must do with the inputs of the known defects.
import { expect } from 'chai';
import { loadFuzzContract } from '../../../scripts/fuzz/contract.js';
import { generateCase, type FuzzCase, type RunState } from '../../../scripts/fuzz/generate.js';
import { Oracle } from '../../../scripts/fuzz/oracle.js';

const contract = loadFuzzContract();
const oracle = new Oracle(contract);
const empty: RunState = { alertIds: [], values: new Map(), pages: [] };

/** A case of `operation` whose REST body and MCP arguments are `body` as written. */
function caseOf(operation: string, body: string | Buffer, contentType: string | null = 'application/json'): FuzzCase {
  const op = contract.operations.find((o) => o.name === operation);
  if (!op) throw new Error(operation);
  const bytes = typeof body === 'string' ? Buffer.from(body) : body;
  const mcpBody = Buffer.concat([Buffer.from(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"${op.tool.name}","arguments":`), bytes, Buffer.from('}}')]);
  return {
    seed: 0,
    index: 0,
    operation: op,
    mutations: [],
    rest: { method: 'POST', query: '', contentType, body: bytes },
    mcp: { path: '/api/mcp', contentType, body: mcpBody, id: 1 },
    compare: true,
    sameMessage: true,
    restFirst: true,
  };
}

describe('fuzzer: generation and oracle', () => {
  it('draws the same bytes for the same seed and case, other bytes for another seed', () => {
    const draw = (seed: number) => Array.from({ length: 300 }, (_, i) => generateCase(contract, seed, i, empty)).map((c) => `${c.operation.name} ${c.rest.body?.toString('hex')} ${c.mcp.body.toString('hex')}`);
    expect(draw(7)).to.deep.equal(draw(7));
    expect(draw(8)).to.not.deep.equal(draw(7));
  });

  it('covers every operation of the contract within a quick run', () => {
    const seen = new Set(Array.from({ length: 600 }, (_, i) => generateCase(contract, 20261124, i, empty).operation.name));
    expect([...seen].sort()).to.deep.equal(contract.operations.map((o) => o.name).sort());
  });

  it('expects a refusal for the inputs of the known defects, and for a NUL, which the contract refuses in every text', () => {
    expect(oracle.rest(caseOf('alertes.create', '{"name":"a","query":"toiture","montant_min":1e309}')).kind).to.equal('refused');
    expect(oracle.rest(caseOf('referentiels.naf', Buffer.from([0x7b, 0x22, 0x71, 0x75, 0x65, 0x72, 0x79, 0x22, 0x3a, 0x22, 0xff, 0x61, 0x62, 0x22, 0x7d]))).kind).to.equal('refused');
    expect(oracle.mcp(caseOf('referentiels.sources', '{"__proto__":{"x":1}}')).kind).to.equal('invalid-arguments');
    expect(oracle.rest(caseOf('referentiels.sources', '{}', 'application/vnd.api+json')).kind).to.equal('unsupported-media');
    expect(oracle.rest(caseOf('referentiels.sources', '{}', 'application/json; charset=UTF-8')).kind).to.equal('any');
    expect(oracle.rest(caseOf('referentiels.sources', '\ufeff{}')).kind).to.equal('invalid-json');
    expect(oracle.rest(caseOf('marches.get', '{"marche_id":"a\\u0000b"}')).kind).to.equal('invalid-arguments');
  });

  it('expects a refusal naming the dispatching argument when it names no operation', () => {
    const c = caseOf('alertes.list', '{}');
    c.mcp.body = Buffer.from('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"service_alerte","arguments":{"action":"constructor"}}}');
    expect(oracle.mcp(c)).to.deep.include({ kind: 'invalid-arguments', mentions: '« action »' });
  });
});
