// The reference operations answer the seeded lists, filtered as the contract says, on REST and MCP alike.
import { expect } from 'chai';
import { startTestService, type TestService } from '../../helpers/service.js';

describe('reference operations over REST', () => {
  let svc: TestService;
  before(async () => {
    svc = await startTestService();
  });
  after(async () => svc.close());

  it('lists the ten alert sources in contract order', async () => {
    const { status, json } = await svc.rest('referentiels.sources', {});
    expect(status).to.equal(200);
    expect(json.total).to.equal(10);
    expect(json.items.map((s: { code: string }) => s.code)).to.deep.equal([
      'marche', 'dce', 'attribution', 'permis', 'reseaux_sociaux', 'mairie', 'bodacc', 'entreprise', 'contact', 'dvf',
    ]);
    const dvf = json.items.find((s: { code: string }) => s.code === 'dvf');
    expect(dvf).to.include({ departements_requis: true, terme_applique: false });
  });

  it('finds a department by name with accents and case folded, or by code', async () => {
    const byName = await svc.rest('referentiels.departements', { query: 'COTES D ARMOR' });
    expect(byName.json.items).to.deep.equal([{ code: '22', nom: "Côtes-d'Armor", region: '53', region_nom: 'Bretagne', outre_mer: false }]);
    const byCode = await svc.rest('referentiels.departements', { query: '2a' });
    expect(byCode.json.items.map((d: { code: string }) => d.code)).to.deep.equal(['2A']);
  });

  it('lists all 104 accepted departments, never 20, and overseas collectivities without region', async () => {
    const { json } = await svc.rest('referentiels.departements', {});
    expect(json.total).to.equal(104);
    const codes = json.items.map((d: { code: string }) => d.code);
    expect(codes).to.not.include('20');
    expect(json.items.find((d: { code: string }) => d.code === '975')).to.include({ region: null, outre_mer: true });
  });

  it('filters departments by region and lists regions with their departments', async () => {
    const { json } = await svc.rest('referentiels.departements', { region: '94' });
    expect(json.items.map((d: { code: string }) => d.code)).to.deep.equal(['2A', '2B']);
    const regions = await svc.rest('referentiels.regions', {});
    expect(regions.json.total).to.equal(18);
    expect(regions.json.items.find((r: { code: string }) => r.code === '53').departements).to.deep.equal(['22', '29', '35', '56']);
  });

  it('filters NAF codes by prefix and by folded words', async () => {
    const byPrefix = await svc.rest('referentiels.naf', { prefix: '43.2' });
    expect(byPrefix.json.items.map((n: { code: string }) => n.code)).to.deep.equal(['43.21A', '43.21B', '43.22A', '43.22B', '43.29A', '43.29B']);
    const byWords = await svc.rest('referentiels.naf', { query: 'ELECTRIQUE voie' });
    expect(byWords.json.items.map((n: { code: string }) => n.code)).to.deep.equal(['43.21B']);
  });

  it('filters CPV codes by digit prefix, every code with a valid check digit', async () => {
    const { json } = await svc.rest('referentiels.cpv', { prefix: '4526' });
    expect(json.items.map((c: { code: string }) => c.code)).to.include('45261000-4');
    expect(json.items.every((c: { code: string }) => c.code.startsWith('4526'))).to.equal(true);
    const all = await svc.rest('referentiels.cpv', {});
    expect(all.json.items[0]).to.deep.equal({ code: '45000000-7', libelle: all.json.items[0].libelle, niveau: 1, parent: null });
  });

  it('ignores punctuation and apostrophes in a query', async () => {
    const { json } = await svc.rest('referentiels.naf', { query: "travaux d'isolation !" });
    expect(json.items.map((n: { code: string }) => n.code)).to.deep.equal(['43.29A']);
  });
});
