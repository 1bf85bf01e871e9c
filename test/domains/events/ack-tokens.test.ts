// An acknowledgement token acknowledges one event of one subscription: altered, cut, re-signed with another key or grown past 512 characters, it is refused.
import { createHmac } from 'node:crypto';
import { expect } from 'chai';
import { signAckToken, verifyAckToken } from '../../../src/domains/events/ack-tokens.js';

describe('event acknowledgement tokens', () => {
  const key = 'clé-de-test';
  const sub = '0b7e9c2a-5d4f-4a1b-8c3e-2f6a9d0b1c4e';

  it('gives back the subscription and the seq it was signed for, deterministically, in far less than 512 characters', () => {
    const token = signAckToken(key, sub, 1234567);
    expect(token).to.equal(signAckToken(key, sub, 1234567));
    expect(token.length).to.be.below(150);
    expect(verifyAckToken(key, token)).to.deep.equal({ subscriptionId: sub, seq: 1234567 });
  });

  it('refuses every alteration', () => {
    const token = signAckToken(key, sub, 42);
    const [body, mac] = token.split('.') as [string, string];
    const other = Buffer.from(`${sub}:43`).toString('base64url');
    const flip = (s: string, i: number) => s.slice(0, i) + (s[i] === 'A' ? 'B' : 'A') + s.slice(i + 1);
    for (const bad of [
      `${other}.${mac}`,
      `${flip(body, 3)}.${mac}`,
      `${body}.${flip(mac, 5)}`,
      `${body}.${mac}.x`,
      body,
      `${body}.`,
      signAckToken('autre-clé', sub, 42),
      `${token}${'A'.repeat(600)}`,
      '',
      'n-importe-quoi',
    ]) expect(verifyAckToken(key, bad), bad).to.equal(null);
  });

  it('refuses a well-signed body that is not a subscription and a positive seq', () => {
    // Signed as the service signs (HMAC-SHA-256 of « ack: » and the body), so only the body's form can refuse it.
    const signed = (text: string) => {
      const b = Buffer.from(text).toString('base64url');
      return `${b}.${createHmac('sha256', key).update(`ack:${b}`).digest('base64url')}`;
    };
    expect(signed(`${sub}:7`)).to.equal(signAckToken(key, sub, 7));
    for (const body of ['pas-un-uuid:4', `${sub}:0`, `${sub}:-1`, `${sub}:1.5`, `${sub}`, `${sub.toUpperCase()}:4`]) expect(verifyAckToken(key, signed(body)), body).to.equal(null);
  });
});
