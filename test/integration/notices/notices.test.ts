// Notice search over HTTP: words with accents folded, phrases and OR; filters by departments or region, market type, CPV prefix, publication window, open deadline and buyer; one notice by UUID or BOAMP id; the same answers on the connectors address; no contact details.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { importFile } from '../../../src/import/run.js';
import { IMPORTERS } from '../../../src/domains/importers.js';
import { mcpClient } from '../../helpers/mcp.js';
import { startTestService, type TestService } from '../../helpers/service.js';

const future = new Date(Date.now() + 20 * 86_400_000).toISOString();
const past = new Date(Date.now() - 20 * 86_400_000).toISOString();

function notice(idweb: string, objet: string, o: { acheteur: string; deps: string[]; types?: string[]; cpv: string; parution: string; limite: string | null }) {
  return {
    idweb,
    id: idweb,
    objet,
    nomacheteur: o.acheteur,
    dateparution: o.parution,
    datelimitereponse: o.limite,
    code_departement: o.deps,
    type_marche: o.types ?? ['TRAVAUX'],
    nature: 'APPEL_OFFRE',
    nature_libelle: 'Avis de marché',
    procedure_libelle: 'Procédure adaptée',
    famille: 'MAPA',
    etat: 'INITIAL',
    url_avis: `https://www.boamp.fr/pages/avis/?q=idweb:"${idweb}"`,
    donnees: JSON.stringify({ OBJET: { CPV: { PRINCIPAL: o.cpv } }, IDENTITE: { TEL: '02 98 00 00 00', MEL: 'achats@exemple.bzh', URL: 'https://www.exemple.bzh' } }),
  };
}

const NOTICES = [
  notice('26-10001', 'Réfection de la toiture de l’école Jules-Ferry', { acheteur: 'Commune de Quimper', deps: ['29'], cpv: '45261000', parution: '2026-11-02', limite: future }),
  notice('26-10002', 'Travaux d’isolation thermique de la médiathèque', { acheteur: 'Ville de Brest', deps: ['29'], cpv: '45321000', parution: '2026-10-15', limite: past }),
  notice('26-10003', 'Couverture et zinguerie du gymnase', { acheteur: 'Ville de Rennes', deps: ['35'], cpv: '45261000', parution: '2026-09-01', limite: future }),
  notice('26-10004', 'Fourniture de mobilier scolaire', { acheteur: 'Département du Finistère', deps: ['29'], types: ['FOURNITURES'], cpv: '39160000', parution: '2026-11-10', limite: future }),
  notice('26-10005', 'Toiture terrasse de la mairie annexe', { acheteur: 'Ville de Lyon', deps: ['69'], cpv: '45261000', parution: '2026-08-20', limite: null }),
];

describe('notices', function () {
  this.timeout(30000);
  let svc: TestService;
  let dir: string;
  let connectors: Client;
  const ids = (json: { results: { fields: { annonce_id: string } }[] }) => json.results.map((r) => r.fields.annonce_id).sort();

  before(async () => {
    svc = await startTestService();
    dir = mkdtempSync(join(tmpdir(), 'notices-'));
    writeFileSync(join(dir, 'boamp.json'), JSON.stringify({ results: NOTICES }));
    await importFile(svc.db, IMPORTERS.boamp as never, join(dir, 'boamp.json'), { progress: () => ({ update: () => undefined, stop: () => undefined }) });
    connectors = await mcpClient(`${svc.url}/api/mcp/connectors`, svc.token);
  });
  after(async () => {
    await connectors.close();
    await svc.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('searches words with accents folded, phrases and alternatives', async () => {
    expect(ids((await svc.rest('marches.search', { query: 'ecole toiture' })).json)).to.deep.equal(['26-10001']);
    expect(ids((await svc.rest('marches.search', { query: 'toiture' })).json)).to.deep.equal(['26-10001', '26-10005']);
    expect(ids((await svc.rest('marches.search', { query: '"toiture terrasse"' })).json)).to.deep.equal(['26-10005']);
    expect(ids((await svc.rest('marches.search', { query: 'toiture, zinguerie' })).json)).to.deep.equal(['26-10001', '26-10003', '26-10005']);
    expect(ids((await svc.rest('marches.search', { query: 'mediatheque isolation' })).json)).to.deep.equal(['26-10002']);
  });

  it('filters by departments or a region, type, CPV prefix, publication window, open deadline and buyer', async () => {
    expect(ids((await svc.rest('marches.search', { departements: ['29'] })).json)).to.deep.equal(['26-10001', '26-10002', '26-10004']);
    expect(ids((await svc.rest('marches.search', { region: '53' })).json)).to.deep.equal(['26-10001', '26-10002', '26-10003', '26-10004']);
    expect(ids((await svc.rest('marches.search', { type_marche: ['FOURNITURES'] })).json)).to.deep.equal(['26-10004']);
    expect(ids((await svc.rest('marches.search', { cpv: '4526' })).json)).to.deep.equal(['26-10001', '26-10003', '26-10005']);
    expect(ids((await svc.rest('marches.search', { publie_depuis: '2026-10-01', publie_avant: '2026-11-05' })).json)).to.deep.equal(['26-10001', '26-10002']);
    expect(ids((await svc.rest('marches.search', { ouverts: true, region: '53' })).json)).to.deep.equal(['26-10001', '26-10003', '26-10004']);
    expect(ids((await svc.rest('marches.search', { acheteur: 'finistere' })).json)).to.deep.equal(['26-10004']);
    expect(ids((await svc.rest('marches.search', { acheteur: 'inconnu' })).json)).to.deep.equal([]);
  });

  it('gives one notice by its UUID or its BOAMP id, with the service’s permalink and no contact', async () => {
    const byIdweb = await svc.rest('marches.get', { marche_id: '26-10001' });
    const record = byIdweb.json.results[0];
    expect(record.fields).to.include({ annonce_id: '26-10001', acheteur: 'Commune de Quimper', cpv: '45261000-4', ouvert: true, source: 'BOAMP' });
    expect(record.fields.url).to.equal(`${svc.url}/marches/${record.id}`);
    expect(record.fields.date_limite).to.match(/[+]0[12]:00$/);
    const byUuid = await svc.rest('marches.get', { marche_id: record.id });
    expect(byUuid.json).to.deep.equal(byIdweb.json);
    const text = JSON.stringify(byIdweb.json);
    for (const contact of ['02 98', 'achats@', 'exemple.bzh', 'boamp.fr']) expect(text).to.not.include(contact);
    expect((await svc.rest('marches.get', { marche_id: '26-99999' })).json.results).to.deep.equal([]);
  });

  it('answers marches_rechercher on the connectors address as REST does', async () => {
    const args = { query: 'toiture', ouverts: true };
    const rest = await svc.rest('marches.search', args);
    const mcp = await connectors.callTool({ name: 'marches_rechercher', arguments: args });
    expect(mcp.structuredContent).to.deep.equal(rest.json);
    expect(ids(rest.json)).to.deep.equal(['26-10001']);
  });

  it('pages with cursors over the whole list', async () => {
    const all = await svc.rest('marches.search', { limit: 50 });
    expect(all.json.total_estimated).to.equal(5);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { json: { results: { id: string }[]; next_cursor: string | null } } = await svc.rest('marches.search', { limit: 2, ...(cursor ? { cursor } : {}) });
      seen.push(...page.json.results.map((r) => r.id));
      cursor = page.json.next_cursor;
    } while (cursor);
    expect(seen).to.deep.equal(all.json.results.map((r: { id: string }) => r.id));
  });
});
