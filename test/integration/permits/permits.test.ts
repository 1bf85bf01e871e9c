// Building permits over HTTP, REST and MCP alike: searches by words and every filter (place, kind, state, authorisation window, housing, surface, applicant), the alert robot's « authorised in the last 45 days » query, pages by cursor, one permit by id or bare number, the company link of a known applicant, and never a private applicant's name.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { importFile } from '../../../src/import/run.js';
import { IMPORTERS } from '../../../src/domains/importers.js';
import { startTestService, type TestService } from '../../helpers/service.js';
import { mcpClient } from '../../helpers/mcp.js';

const CODES = [
  'REG_CODE', 'REG_LIBELLE', 'DEP_CODE', 'DEP_LIBELLE', 'COMM', 'TYPE_DAU', 'NUM_DAU', 'ETAT_DAU', 'DATE_REELLE_AUTORISATION', 'DATE_REELLE_DOC',
  'DATE_REELLE_DAACT', 'AN_DEPOT', 'DPC_DERN', 'APE_DEM', 'CJ_DEM', 'DENOM_DEM', 'SIREN_DEM', 'SIRET_DEM', 'CODPOST_DEM', 'LOCALITE_DEM',
  'ADR_NUM_TER', 'ADR_TYPEVOIE_TER', 'ADR_LIBVOIE_TER', 'ADR_LOCALITE_TER', 'ADR_CODPOST_TER', 'SUPERFICIE_TERRAIN', 'NATURE_PROJET_DECLAREE',
  'NB_LGT_TOT_CREES', 'SURF_HAB_CREEE', 'SURF_LOC_CREEE',
];
// Days counted from the test's load, for the rows and the answers alike (a run crossing midnight kept them apart).
const LOADED_AT = Date.now();
const day = (offset: number) => new Date(LOADED_AT + offset * 86_400_000).toISOString().slice(0, 10);
const q = (v: string | number | null) => (v === null ? '' : typeof v === 'number' ? String(v) : `"${v}"`);

interface P {
  comm: string;
  type: string;
  num: string;
  etat: number;
  aut: string;
  denom?: string;
  siren?: string;
  localite: string;
  nature: number;
  lgt: number;
  hab: number;
  loc: number;
}
const row = (p: P) =>
  [
    '53', 'Bretagne', p.comm.slice(0, 2), 'Finistère', p.comm, p.type, p.num, p.etat, p.aut, p.etat >= 5 ? day(-10) : null, p.etat === 6 ? day(-2) : null, Number(p.aut.slice(0, 4)), p.aut.slice(0, 7),
    p.denom ? '41.20A' : null, p.denom ? '5710' : null, p.denom ?? null, p.siren ?? null, p.siren ? `${p.siren}00012` : null,
    // The applicant's own postal code and locality: published, never kept.
    '29999', 'LOCALITE-DU-PARTICULIER', '3', 'RUE', 'DE LA GARE', p.localite, '29000', 1200, p.nature, p.lgt, p.hab, p.loc,
  ]
    .map((v, i) => (i === 7 || i === 11 || i >= 25 ? (v === null ? '' : String(v)) : q(v as string | null)))
    .join(';');

const PERMITS: P[] = [
  { comm: '29232', type: 'PC', num: '02923225A0001', etat: 2, aut: day(-10), denom: 'SCI LES HAUTS DE QUIMPER', siren: '732829320', localite: 'QUIMPER', nature: 1, lgt: 24, hab: 1500, loc: 0 },
  { comm: '29232', type: 'PC', num: '02923225A0002', etat: 5, aut: day(-30), localite: 'QUIMPER', nature: 1, lgt: 1, hab: 110, loc: 0 },
  { comm: '29019', type: 'DP', num: '02901925B0003', etat: 2, aut: day(-100), localite: 'BREST', nature: 2, lgt: 1, hab: 25, loc: 0 },
  { comm: '29019', type: 'PC', num: '02901924B0004', etat: 6, aut: day(-400), denom: 'BREST METROPOLE HABITAT', siren: '272900011', localite: 'BREST', nature: 1, lgt: 40, hab: 2600, loc: 300 },
  { comm: '35238', type: 'PC', num: '03523825C0005', etat: 4, aut: day(-20), denom: 'SCI LES HAUTS DE QUIMPER', siren: '732829320', localite: 'RENNES', nature: 1, lgt: 8, hab: 600, loc: 0 },
  { comm: '69123', type: 'PC', num: '06912325D0006', etat: 2, aut: day(-5), denom: 'VILLE DE LYON', siren: '216901231', localite: 'LYON', nature: 2, lgt: 0, hab: 0, loc: 900 },
];

function listFile(): string {
  const labels = CODES.map((c) => `"Libellé ${c}"`).join(';');
  return [labels, CODES.map((c) => `"${c}"`).join(';'), ...PERMITS.map(row)].join('\n') + '\n';
}

const DEMOLITION = [
  '"Code région";"Département";"Commune";"Numéro PD";"Etat";"Date réelle d\'autorisation";"Dénomination";"SIREN";"Localité du terrain"',
  '"REG_CODE";"DEP_CODE";"COMM";"NUM_PD";"ETAT_PD";"DATE_REELLE_AUTORISATION";"DENOM_DEM";"SIREN_DEM";"ADR_LOCALITE_TER"',
  `"53";"29";"29232";"02923225A0001";2;"${day(-40)}";"SCI LES HAUTS DE QUIMPER";"732829320";"QUIMPER"`,
].join('\n');

describe('building permits', function () {
  this.timeout(30000);
  let svc: TestService;
  let dir: string;
  let mcp: Client;
  const ids = (json: { results: { id: string }[] }) => json.results.map((r) => r.id).sort();
  const search = async (args: Record<string, unknown>) => {
    const { status, json } = await svc.rest('permis.search', args);
    expect(status, JSON.stringify(json)).to.equal(200);
    return json;
  };

  before(async () => {
    svc = await startTestService();
    dir = mkdtempSync(join(tmpdir(), 'permits-'));
    writeFileSync(join(dir, 'logements.csv'), listFile());
    writeFileSync(join(dir, 'demolir.csv'), DEMOLITION);
    for (const name of ['logements.csv', 'demolir.csv']) {
      const report = await importFile(svc.db, IMPORTERS.permis as never, join(dir, name), { progress: () => ({ update: () => undefined, stop: () => undefined }) });
      expect(report.skipped, JSON.stringify(report.problems)).to.equal(0);
    }
    // The applicant known in the directory (its record links to the company's page).
    await svc.db('companies').insert({ siren: '732829320', denomination: 'SCI LES HAUTS DE QUIMPER', etat: 'A', ingested_at: '2026-01-01T00:00:00Z', updated_at: '2026-01-01T00:00:00Z' });
    mcp = await mcpClient(`${svc.url}/api/mcp`, svc.token);
  });
  after(async () => {
    await mcp.close();
    await svc.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('searches by words: applicant, nature of the project, locality, kind', async () => {
    expect(ids(await search({ query: 'hauts quimper' }))).to.deep.equal(['PC02923225A0001', 'PC03523825C0005', 'PD02923225A0001']);
    expect(ids(await search({ query: 'brest' }))).to.deep.equal(['DP02901925B0003', 'PC02901924B0004']);
    expect(ids(await search({ query: 'demolition' }))).to.deep.equal(['PD02923225A0001']);
    expect(ids(await search({ query: 'travaux existante' }))).to.deep.equal(['DP02901925B0003', 'PC06912325D0006']);
    // Relevance first: the applicant weighs more than the locality.
    expect((await search({ query: 'quimper', type: ['PC'] })).results[0].id).to.equal('PC02923225A0001');
  });

  it('filters by place, kind, state, authorisation window, housing, surface and applicant', async () => {
    expect(ids(await search({ departements: ['29'], type: ['PC', 'DP'] }))).to.deep.equal(['DP02901925B0003', 'PC02901924B0004', 'PC02923225A0001', 'PC02923225A0002']);
    expect(ids(await search({ region: '53', type: ['PD'] }))).to.deep.equal(['PD02923225A0001']);
    expect(ids(await search({ commune: '29019' }))).to.deep.equal(['DP02901925B0003', 'PC02901924B0004']);
    expect(ids(await search({ etat: ['4'] }))).to.deep.equal(['PC03523825C0005']);
    expect(ids(await search({ etat: ['6'] }))).to.deep.equal(['PC02901924B0004']);
    expect(ids(await search({ autorise_depuis: day(-35), autorise_avant: day(-8) }))).to.deep.equal(['PC02923225A0001', 'PC02923225A0002', 'PC03523825C0005']);
    expect(ids(await search({ logements_min: 20 }))).to.deep.equal(['PC02901924B0004', 'PC02923225A0001']);
    expect(ids(await search({ surface_min: 800, surface_max: 1600 }))).to.deep.equal(['PC02923225A0001', 'PC06912325D0006']);
    expect(ids(await search({ siren: '732829320' }))).to.deep.equal(['PC02923225A0001', 'PC03523825C0005', 'PD02923225A0001']);
  });

  it('answers the alert robot’s query: authorised (or started, or finished) in the last 45 days, latest first', async () => {
    const json = await search({ etat: ['2', '5', '6'], autorise_depuis: day(-45) });
    expect(json.results.map((r: { id: string }) => r.id)).to.deep.equal(['PC06912325D0006', 'PC02923225A0001', 'PC02923225A0002', 'PD02923225A0001']);
    expect(json.total_estimated).to.equal(4);
  });

  it('pages with a signed cursor and gives the same answer on MCP as on REST', async () => {
    const first = await search({ region: '53', limit: 2 });
    expect(first.results).to.have.length(2);
    expect(first.total_estimated).to.equal(6);
    const second = await search({ region: '53', limit: 2, cursor: first.next_cursor });
    const third = await search({ region: '53', limit: 2, cursor: second.next_cursor });
    expect(third.next_cursor).to.equal(null);
    const all = [...first.results, ...second.results, ...third.results].map((r: { id: string }) => r.id);
    expect(new Set(all).size).to.equal(6);
    expect((await svc.rest('permis.search', { region: '11', cursor: first.next_cursor })).status).to.equal(400);
    const viaMcp = await mcp.callTool({ name: 'permis_rechercher', arguments: { region: '53', limit: 2 } });
    expect(viaMcp.isError).to.not.equal(true);
    expect((viaMcp.structuredContent as { results: unknown[] }).results).to.deep.equal(first.results);
  });

  it('gives one permit by id (any spelling) or every permit of a bare number, with the permalinks', async () => {
    const { json } = await svc.rest('permis.get', { id: 'pc 029 232 25 a0001' });
    expect(json.results).to.have.length(1);
    const record = json.results[0];
    expect(record.id).to.equal('PC02923225A0001');
    expect(record.fields).to.include({
      numero: '02923225A0001',
      type: 'PC',
      type_libelle: 'Permis de construire',
      etat: '2',
      etat_libelle: 'autorisé',
      date_autorisation: day(-10),
      commune: '29232',
      departement: '29',
      localite: 'QUIMPER',
      code_postal: '29000',
      adresse: '3 RUE DE LA GARE',
      nature_projet: 'Nouvelle construction',
      logements: 24,
      surface_creee: 1500,
      demandeur: 'SCI LES HAUTS DE QUIMPER',
      siren_demandeur: '732829320',
      siret_demandeur: '73282932000012',
      demandeur_url: `${svc.url}/entreprises/732829320`,
      url: `${svc.url}/permis/PC02923225A0001`,
    });
    expect(record.resume).to.match(/^Autorisé le \d{2}\/\d{2}\/\d{4} — QUIMPER \(29\) — nouvelle construction — 24 logements — 1\s500 m² créés — demandeur : SCI LES HAUTS DE QUIMPER \(SIREN 732829320\)\.$/u);
    const both = await svc.rest('permis.get', { id: '02923225A0001' });
    expect(ids(both.json)).to.deep.equal(['PC02923225A0001', 'PD02923225A0001']);
    expect((await svc.rest('permis.get', { id: 'PC99999999Z9999' })).json.results).to.deep.equal([]);
    const viaMcp = await mcp.callTool({ name: 'permis_consulter', arguments: { id: 'PC02923225A0001' } });
    expect(viaMcp.structuredContent).to.deep.equal(json);
  });

  it('never names a private applicant nor keeps anything of the applicant’s own address', async () => {
    const { json } = await svc.rest('permis.get', { id: 'PC02923225A0002' });
    expect(json.results[0].fields).to.include({ demandeur: null, siren_demandeur: null, demandeur_url: null });
    expect(json.results[0].resume).to.match(/demandeur particulier ou non publié/);
    const all = await search({ limit: 50 });
    expect(JSON.stringify(all)).to.not.match(/LOCALITE-DU-PARTICULIER|29999/);
    // A company not in the directory: its SIREN, no link.
    const brest = (await svc.rest('permis.get', { id: 'PC02901924B0004' })).json.results[0];
    expect(brest.fields).to.include({ siren_demandeur: '272900011', demandeur_url: null });
  });

  it('refuses a bad state code, kind or commune naming the argument', async () => {
    for (const [args, name] of [
      [{ etat: ['3'] }, 'etat'],
      [{ type: ['PX'] }, 'type'],
      [{ commune: '2900' }, 'commune'],
      [{ logements_min: 0 }, 'logements_min'],
    ] as const) {
      const { status, json } = await svc.rest('permis.search', args);
      expect(status, name).to.equal(400);
      expect(json.error.message).to.include(`« ${name}`);
    }
  });
});
