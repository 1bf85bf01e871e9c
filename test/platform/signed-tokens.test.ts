// A signed token reads back only with its key and its use, whole and untouched; its form (body.HMAC of prefix+body) is the one the links and acknowledgement tokens always had.
import { createHmac } from 'node:crypto';
import { expect } from 'chai';
import { openToken, signToken } from '../../src/platform/signed-tokens.js';

const KEY = 'clé-de-test';

describe('signed tokens', () => {
  it('keeps the form of the existing tokens: base64url body, a dot, HMAC-SHA-256 of the prefix and the body', () => {
    const token = signToken(KEY, 'ack:', 'abonnement:42');
    const body = Buffer.from('abonnement:42').toString('base64url');
    expect(token).to.equal(`${body}.${createHmac('sha256', KEY).update(`ack:${body}`).digest('base64url')}`);
  });

  it('reads back its payload with the same key and use', () => {
    expect(openToken(KEY, 'dossier-export.', signToken(KEY, 'dossier-export.', '["a","b"]'), 1000)).to.equal('["a","b"]');
    expect(openToken(KEY, '', signToken(KEY, '', 'é → 😀'), 1000)).to.equal('é → 😀');
  });

  it('refuses another use, another key, an altered body or signature, extra parts and a token over the length', () => {
    const token = signToken(KEY, 'ack:', 'x:1');
    const [body, signature] = token.split('.') as [string, string];
    const cases: [string, string, string, number][] = [
      ['autre usage', 'dossier-export.', token, 1000],
      ['sans préfixe', '', token, 1000],
      ['corps modifié', 'ack:', `${Buffer.from('x:2').toString('base64url')}.${signature}`, 1000],
      ['signature modifiée', 'ack:', `${body}.${signature.slice(0, -1)}${signature.endsWith('A') ? 'B' : 'A'}`, 1000],
      ['partie en trop', 'ack:', `${token}.x`, 1000],
      ['sans signature', 'ack:', body, 1000],
      ['trop long', 'ack:', token, token.length - 1],
    ];
    for (const [label, prefix, given, max] of cases) expect(openToken(KEY, prefix, given, max), label).to.equal(null);
    expect(openToken('autre-clé', 'ack:', token, 1000)).to.equal(null);
  });
});
