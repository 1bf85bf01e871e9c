// The reference operations answer the seeded lists, filtered as the contract says, on REST and MCP alike.
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { importFile } from '../../../src/import/run.js';
import { IMPORTERS } from '../../../src/domains/importers.js';
import { forgetSourceVolumes } from '../../../src/domains/source-volumes.js';
import { startTestService, type TestService } from '../../helpers/service.js';

const BOAMP_SAMPLE = fileURLToPath(new URL('../../../../shared/real-samples/boamp/boamp-explore-v2.1-records-limit5-jpbenga.json', import.meta.url));

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

  it('says what the service holds of each source, and an alert says which watched sources hold nothing yet', async () => {
    const before = await svc.rest('referentiels.sources', {});
    const marche = () => before.json.items.find((s: { code: string }) => s.code === 'marche');
    expect(marche().donnees).to.deep.equal({ enregistrements: 0, derniere_entree: null });
    const empty = await svc.rest('alertes.create', { name: 'Sans données', query: 'toiture', sources: ['marche'] });
    expect(empty.json.warnings).to.have.length(1);
    expect(empty.json.warnings[0]).to.match(/^La source « marche » n'a encore aucune donnée dans le service/);

    await importFile(svc.db, IMPORTERS.boamp as never, BOAMP_SAMPLE, { progress: () => ({ update: () => undefined, stop: () => undefined }) });
    // Counted at most once a minute: the import in this process forgets the counts.
    forgetSourceVolumes(svc.db);
    const after = await svc.rest('referentiels.sources', {});
    const held = after.json.items.find((s: { code: string }) => s.code === 'marche').donnees;
    expect(held.enregistrements).to.equal(4);
    expect(held.derniere_entree).to.match(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?[+-]\d{2}:\d{2}$/);
    expect(after.json.items.find((s: { code: string }) => s.code === 'dce').donnees).to.deep.equal({ enregistrements: 0, derniere_entree: null });
    const full = await svc.rest('alertes.create', { name: 'Avec données', query: 'toiture', sources: ['marche', 'dce'] });
    expect(full.json.warnings.filter((w: string) => /aucune donnée/.test(w))).to.deep.equal([
      "La source « dce » n'a encore aucune donnée dans le service : elle est surveillée, mais rien n'y sera trouvé avant son premier import (voir referentiel_sources).",
    ]);
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
