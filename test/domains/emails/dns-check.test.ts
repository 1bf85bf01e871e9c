// The sending domain's DNS checks: a record is conforme only when it holds what the service asked (chunks joined, whitespace ignored), absent or different otherwise, and a lookup that fails or hangs is erreur_dns, bounded in time.
import { expect } from 'chai';
import { checkCname, checkTxt, type DnsResolver } from '../../../src/domains/emails/dns-check.js';

function resolver(txt: Record<string, string[][]>, cname: Record<string, string[]> = {}, failure?: Error | 'hang'): DnsResolver {
  const answer = <T>(value: T | undefined): Promise<T> => {
    if (failure === 'hang') return new Promise(() => undefined);
    if (failure) return Promise.reject(failure);
    return value === undefined ? Promise.reject(Object.assign(new Error('x'), { code: 'ENOTFOUND' })) : Promise.resolve(value);
  };
  return { resolveTxt: async (n) => answer(txt[n]), resolveCname: async (n) => answer(cname[n]) };
}

describe('sending-domain DNS checks', function () {
  this.timeout(10000);

  it('finds the SPF include among other TXT records and the DKIM key split in chunks', async () => {
    const r = resolver({ 'a.fr': [['google-site-verification=1'], ['v=spf1 include:_spf.autre.fr', ' include:_spf.service.fr ~all']], 'k._domainkey.a.fr': [['v=DKIM1; k=rsa; p=ABC', 'DEF']] });
    expect(await checkTxt(r, 'a.fr', 'v=spf1', 'include:_spf.service.fr')).to.equal('conforme');
    expect(await checkTxt(r, 'k._domainkey.a.fr', 'v=DKIM1', 'p=ABCDEF')).to.equal('conforme');
    expect(await checkTxt(r, 'k._domainkey.a.fr', 'v=DKIM1', 'p=ABCDEG')).to.equal('different');
    expect(await checkTxt(r, 'b.fr', 'v=spf1', 'include:_spf.service.fr')).to.equal('absent');
    expect(await checkTxt(resolver({ 'a.fr': [['autre chose']] }), 'a.fr', 'v=spf1', 'include:x')).to.equal('absent');
  });

  it('compares CNAME targets without the trailing dot', async () => {
    const r = resolver({}, { 'retour.a.fr': ['Retour.Service.fr.'] });
    expect(await checkCname(r, 'retour.a.fr', 'retour.service.fr')).to.equal('conforme');
    expect(await checkCname(r, 'retour.a.fr', 'retour.autre.fr')).to.equal('different');
    expect(await checkCname(r, 'retour.b.fr', 'retour.service.fr')).to.equal('absent');
  });

  it('says erreur_dns when the lookup fails or does not answer within its bound', async () => {
    expect(await checkTxt(resolver({}, {}, Object.assign(new Error('x'), { code: 'ESERVFAIL' })), 'a.fr', 'v=spf1', 'x')).to.equal('erreur_dns');
    const started = Date.now();
    expect(await checkCname(resolver({}, {}, 'hang'), 'a.fr', 'x')).to.equal('erreur_dns');
    expect(Date.now() - started).to.be.below(7000);
  });
});
