// Rule: a result handed out again as the same frozen object is checked against its output schema and encoded once, still refused (503) on every call if it breaks the schema; an unfrozen result is checked and encoded anew on each call.
import { expect } from 'chai';
import { frozenCopy } from '../../../src/platform/frozen.js';
import { startTestService, type TestService } from '../../helpers/service.js';

describe('REST: frozen answers', () => {
  let svc: TestService;
  const region = { code: '53', nom: 'Bretagne', departements: ['22', '29', '35', '56'] };
  const mutable = { total: 1, items: [region] };
  const broken = frozenCopy({ total: 'un', items: [] });
  const kept = frozenCopy({ total: 1, items: [{ code: '53', nom: 'Bretagne', departements: ['22', '29', '35', '56'] }] });
  let answer: object = mutable;
  before(async () => {
    svc = await startTestService({
      wrapRegistry: (registry) => ({
        ...registry,
        'referentiels.regions': async () => answer as never,
      }),
    });
  });
  after(async () => svc.close());

  it('refuses a frozen answer that breaks its schema on every call, not only the first', async () => {
    answer = broken;
    for (let i = 0; i < 3; i++) {
      const { status, json } = await svc.rest('referentiels.regions', {});
      expect(status).to.equal(503);
      expect(json.error.code).to.equal('unavailable');
    }
  });

  it('answers a frozen answer the same on every call', async () => {
    answer = kept;
    for (let i = 0; i < 2; i++) {
      const { status, json } = await svc.rest('referentiels.regions', {});
      expect(status).to.equal(200);
      expect(json).to.deep.equal({ total: 1, items: [{ code: '53', nom: 'Bretagne', departements: ['22', '29', '35', '56'] }] });
    }
  });

  it('checks and encodes an unfrozen answer anew: a change between calls is seen, a break refused', async () => {
    answer = mutable;
    expect((await svc.rest('referentiels.regions', {})).json.items[0].nom).to.equal('Bretagne');
    region.nom = 'Normandie';
    expect((await svc.rest('referentiels.regions', {})).json.items[0].nom).to.equal('Normandie');
    (region as { nom: unknown }).nom = 42;
    expect((await svc.rest('referentiels.regions', {})).status).to.equal(503);
  });
});
