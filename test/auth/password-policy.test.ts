// Passwords set through the pages have 12 characters at least and are not common ones (the list of @zxcvbn-ts/language-common), padded or repeated; the activity log keeps a network, not an address; each account request has its own throttle allowance.
import { expect } from 'chai';
import { passwordProblem } from '../../src/auth/password-policy.js';
import { networkOf } from '../../src/auth/store/activity-log.js';
import { waitSeconds } from '../../src/auth/store/login-throttle.js';

describe('password rule', () => {
  it('refuses fewer than 12 characters (counted as characters, not bytes), more than 200', () => {
    expect(passwordProblem('Abcdefghijk')).to.match(/trop court : 12/);
    expect(passwordProblem('ééééééééééé')).to.match(/trop court/);
    expect(passwordProblem('x'.repeat(201))).to.match(/trop long/);
  });
  it('refuses common passwords, also padded with digits and symbols, or repeated', () => {
    for (const p of ['qwerty123456', '1q2w3e4r5t6y', 'Azertyuiop2024!', '!!Password12345', 'motdepassemotdepasse', 'sunshinesunshine']) expect(passwordProblem(p), p).to.match(/trop courant/);
  });
  it('refuses a password containing the e-mail’s local part', () => {
    expect(passwordProblem('jean.dupont-2026-toit', 'Jean.Dupont@exemple.fr')).to.match(/adresse électronique/);
  });
  it('accepts a long uncommon passphrase', () => {
    expect(passwordProblem('Charpente-ardoise-zinc-42', 'jean@exemple.fr')).to.equal(null);
    expect(passwordProblem('tuiles rouges du Trégor')).to.equal(null);
  });
});

describe('activity networks', () => {
  it('keeps the /24 of an IPv4 address (also IPv4-mapped) and the /48 of an IPv6 one', () => {
    expect(networkOf('203.0.113.77')).to.equal('IPv4 203.0.113.0/24');
    expect(networkOf('::ffff:198.51.100.9')).to.equal('IPv4 198.51.100.0/24');
    expect(networkOf('2001:db8:1:2:3::4')).to.equal('IPv6 2001:db8:1::/48');
    expect(networkOf('pas une adresse')).to.equal(null);
  });
});

describe('throttle allowances of account requests', () => {
  it('20 per client address, 5 per e-mail, whatever the request', () => {
    for (const prefix of ['', 'inscription:', 'reinitialisation:', 'invitation:']) {
      expect(waitSeconds(`${prefix}ip:127.0.0.1`, 19), prefix).to.equal(0);
      expect(waitSeconds(`${prefix}ip:127.0.0.1`, 20), prefix).to.equal(30);
      expect(waitSeconds(`${prefix}email:a@b.fr`, 4), prefix).to.equal(0);
      expect(waitSeconds(`${prefix}email:a@b.fr`, 5), prefix).to.equal(30);
    }
    // An e-mail whose local part reads « ip: » is still counted as an e-mail.
    expect(waitSeconds('email:ip:x@b.fr', 5)).to.equal(30);
  });
});
