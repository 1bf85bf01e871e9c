// A request body is read only as application/json in UTF-8 (no charset, or charset=utf-8): any other type is 415, bytes that are not UTF-8 are 400 invalid_json.
import type { IncomingMessage } from 'node:http';
import { PassThrough } from 'node:stream';
import { expect } from 'chai';
import { InvalidJsonError, UnsupportedMediaTypeError } from '../../src/errors.js';
import { isJsonContentType, readJsonBody } from '../../src/platform/read-body.js';

describe('isJsonContentType', () => {
  const cases: { header: string | undefined; want: boolean }[] = [
    { header: 'application/json', want: true },
    { header: 'APPLICATION/JSON', want: true },
    { header: ' application/json ', want: true },
    { header: 'application/json; charset=utf-8', want: true },
    { header: 'application/json;charset=UTF-8', want: true },
    { header: 'application/json; charset="utf-8"', want: true },
    { header: 'application/json; charset = utf-8', want: true },
    { header: 'application/json; version=2', want: true },
    { header: undefined, want: false },
    { header: '', want: false },
    { header: 'application/merge-patch+json', want: false },
    { header: 'application/vnd.api+json', want: false },
    { header: 'application/json-seq', want: false },
    { header: 'text/json', want: false },
    { header: 'text/plain', want: false },
    { header: 'application/json; charset=latin1', want: false },
    { header: 'application/json; charset=iso-8859-1', want: false },
    { header: 'application/json; charset=utf-16', want: false },
    { header: 'application/json; charset=utf8', want: false },
    { header: 'application/json; charset=', want: false },
    { header: 'application/json; charset=utf-8; charset=latin1', want: false },
  ];
  for (const c of cases) it(`${String(c.header)} → ${c.want}`, () => expect(isJsonContentType(c.header)).to.equal(c.want));
});

describe('readJsonBody', () => {
  const limits = { bodyBytes: 1024, bodyTimeoutMs: 1000 };

  function request(contentType: string | undefined, bytes: Buffer): IncomingMessage {
    const stream = new PassThrough();
    Object.assign(stream, { headers: contentType ? { 'content-type': contentType } : {} });
    stream.end(bytes);
    return stream as unknown as IncomingMessage;
  }

  async function refusal(contentType: string | undefined, bytes: Buffer): Promise<Error> {
    try {
      await readJsonBody(request(contentType, bytes), limits);
    } catch (err) {
      return err as Error;
    }
    expect.fail('un refus était attendu');
  }

  it('reads UTF-8 JSON, four-byte characters included', async () => {
    expect(await readJsonBody(request('application/json', Buffer.from('{"q":"étanchéité 🏠"}')), limits)).to.deep.equal({ q: 'étanchéité 🏠' });
  });

  it('keeps a __proto__ key as an own key, for validation to refuse', async () => {
    const body = (await readJsonBody(request('application/json', Buffer.from('{"__proto__":{"a":1}}')), limits)) as object;
    expect(Object.keys(body)).to.deep.equal(['__proto__']);
    expect(Object.getPrototypeOf(body)).to.equal(Object.prototype);
  });

  it('refuses another type with the French 415 naming the rule', async () => {
    const err = await refusal('application/json; charset=latin1', Buffer.from('{}'));
    expect(err).to.be.instanceOf(UnsupportedMediaTypeError);
    expect(err.message).to.equal('Type de contenu non pris en charge : envoyer application/json, sans charset ou avec charset=utf-8.');
  });

  const notUtf8: { name: string; bytes: number[] }[] = [
    { name: 'a latin-1 é', bytes: [0xe9] },
    { name: 'a lone continuation byte', bytes: [0x80] },
    { name: 'an overlong slash', bytes: [0xc0, 0xaf] },
    { name: 'an encoded surrogate', bytes: [0xed, 0xa0, 0x80] },
    { name: 'a code point past U+10FFFF', bytes: [0xf4, 0x90, 0x80, 0x80] },
    { name: 'a truncated sequence at the end', bytes: [0xe2, 0x82] },
    { name: '0xFF', bytes: [0xff] },
  ];
  for (const c of notUtf8) {
    it(`refuses ${c.name} with 400 invalid_json`, async () => {
      const err = await refusal('application/json', Buffer.concat([Buffer.from('{"q":"a'), Buffer.from(c.bytes), Buffer.from('"}')]));
      expect(err).to.be.instanceOf(InvalidJsonError);
      expect(err.message).to.equal("Corps illisible : il n'est pas encodé en UTF-8 valide.");
    });
  }

  it('still refuses a byte order mark (JSON has none), an empty body and malformed JSON as invalid_json', async () => {
    for (const bytes of [Buffer.from([0xef, 0xbb, 0xbf, 0x7b, 0x7d]), Buffer.from('  '), Buffer.from('{"a":')]) {
      expect(await refusal('application/json', bytes)).to.be.instanceOf(InvalidJsonError);
    }
  });
});
