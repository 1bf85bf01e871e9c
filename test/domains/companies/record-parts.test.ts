// A company's record read as a page of one (by SIREN) or by SIRET, in one statement on PostgreSQL, gives on each engine what the separate reads give: unit, head office or establishment, RGE in force, register, accounts, proceedings; an unknown SIREN or SIRET, none.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { recordPartsBySiren, recordPartsBySiret, MAX_PROCEEDINGS, type RecordParts } from '../../../src/domains/companies/record-parts.js';
import { companyBySiren, companyBySiret } from '../../../src/domains/companies/store.js';
import { proceedingsBySiren } from '../../../src/domains/announcements/store.js';
import { PROCEEDING_FAMILIES } from '../../../src/domains/announcements/import-bodacc.js';
import { detailsBySiren, NO_DETAILS } from '../../../src/domains/companies/details.js';
import type { Database } from '../../../src/platform/db/database.js';
import { importFile } from '../../../src/import/run.js';
import { IMPORTERS } from '../../../src/domains/importers.js';
import { writeDemoData } from '../../../scripts/demo/index.js';
import { openMigratedDatabase, type MigratedDatabase } from '../../helpers/service.js';

/** The reference: the separate reads, one statement each. */
async function separately(db: Database, key: { siren: string } | { siret: string }, today: string): Promise<RecordParts> {
  const view = 'siren' in key ? await companyBySiren(db, key.siren, today) : await companyBySiret(db, key.siret, today);
  if (!view) return { view: null, proceedings: [], details: NO_DETAILS };
  const siren = view.company?.siren ?? view.establishment?.siren ?? view.register?.siren ?? '';
  const proceedings = (await proceedingsBySiren(db, [siren], PROCEEDING_FAMILIES, MAX_PROCEEDINGS)).get(siren) ?? [];
  const details = (await detailsBySiren(db, [siren])).get(siren) ?? NO_DETAILS;
  return { view, proceedings, details };
}

/** Byte for byte: the record is built from these parts (RGE order aside, which the record sorts). */
const canonical = (parts: RecordParts) =>
  JSON.stringify({ ...parts, view: parts.view && { ...parts.view, rge: [...parts.view.rge].sort((a, b) => (a.siret + a.domaine < b.siret + b.domaine ? -1 : 1)) } });

const TODAY = '2026-03-15';
const STAMP = { ingested_at: '2026-03-01T00:00:00Z', updated_at: '2026-03-01T00:00:00Z' };

const unit = (siren: string, fields: Record<string, unknown> = {}) => ({
  siren,
  denomination: `SOCIETE ${siren}`,
  categorie_juridique: '5499',
  activite_principale: '43.91B',
  nomenclature_activite: 'NAFRev2',
  tranche_effectifs: '11',
  categorie_entreprise: 'PME',
  date_creation: '2015-03-02',
  etat: 'A',
  nic_siege: '00018',
  unit_known: true,
  ...STAMP,
  ...fields,
});
const establishment = (siren: string, nic: string, fields: Record<string, unknown> = {}) => ({
  siret: `${siren}${nic}`,
  siren,
  nic,
  siege: false,
  etat: 'A',
  date_creation: '2015-03-02',
  activite_principale: '43.91B',
  adresse: `${nic} rue du Port`,
  code_postal: '29200',
  commune: 'BREST',
  departement: '29',
  ...STAMP,
  ...fields,
});
const rge = (siret: string, domaine: string, date_debut: string | null, date_fin: string | null) => ({ siret, domaine, organisme: 'Qualibat', date_debut, date_fin, ...STAMP });
const register = (siren: string, capital: number | null, officers: unknown[]) => ({
  siren,
  capital_social_eur: capital,
  officers: JSON.stringify(officers),
  officers_count: officers.length,
  denomination: `REGISTRE ${siren}`,
  categorie_juridique: '5710',
  activite_principale: '43.21A',
  siege_code_postal: '35000',
  siege_commune: 'RENNES',
  ...STAMP,
});
const account = (siren: string, date_cloture: string, type_bilan: string, chiffre_affaires: number | null, confidentiel = false) => ({
  siren,
  date_cloture,
  type_bilan,
  confidentiel,
  chiffre_affaires,
  marge_brute: chiffre_affaires === null ? null : chiffre_affaires / 3,
  ebe: 0.1 + 0.2,
  resultat_net: -12345.678,
  ...STAMP,
});
const announcement = (id: string, siren: string, date_parution: string, famille: string, nature: string | null) => ({
  row: {
    id,
    date_parution,
    famille,
    sirens: JSON.stringify([siren]),
    jugement_nature: nature,
    jugement_date: nature ? date_parution : null,
    tribunal: nature ? 'TRIBUNAL DE COMMERCE DE BREST' : null,
    details_illisibles: '',
    ...STAMP,
  },
  link: { announcement_id: id, siren, date_parution, famille },
});

// Every case of the record: the facts the separate reads give, checked on each engine.
const FULL = '732829320'; // unit, head office by NIC, RGE (in force, ended, future), register, accounts, 22 proceedings
const FLAGGED = '328847397'; // unit without NIC: the establishment flagged head office; accounts alone
const HEADLESS = '343262622'; // unit whose NIC names no imported establishment: of two flagged, the open one
const NO_ROW = '377514428'; // establishments without any companies row: the head office, closed
const UNIT_ALONE = '511278533'; // unit, no establishment, register alone
const ESTABLISHMENTS = '552032534'; // provisional unit: the open establishment, its RGE
const REGISTER_ONLY = '889297453'; // known by the register alone
const CEASED = '401234567'; // ceased unit, closed head office, one proceeding
const UNKNOWN = '999999999';

describe('company record parts by SIREN', function () {
  this.timeout(60000);
  let m: MigratedDatabase;

  before(async () => {
    m = await openMigratedDatabase();
    const { db } = m;
    await db('companies').insert([
      unit(FULL, { nic_siege: '00018', activite_principale_naf25: '43.91B' }),
      unit(FLAGGED, { nic_siege: null, denomination: null, nom_personne: 'LACOSTE' }),
      unit(UNIT_ALONE, { nic_siege: '00011' }),
      unit(ESTABLISHMENTS, { unit_known: false, denomination: null }),
      unit(CEASED, { etat: 'C', nic_siege: '00015' }),
      unit(HEADLESS, { nic_siege: '00099' }),
    ]);
    await db('establishments').insert([
      establishment(FULL, '00018', { siege: true, enseigne: 'CHARPENTES' }),
      establishment(FULL, '00026'),
      establishment(FLAGGED, '00011'),
      establishment(FLAGGED, '00029', { siege: true }),
      establishment(ESTABLISHMENTS, '00010', { etat: 'F' }),
      establishment(ESTABLISHMENTS, '00028'),
      establishment(ESTABLISHMENTS, '00036'),
      establishment(CEASED, '00015', { siege: true, etat: 'F' }),
      establishment(HEADLESS, '00012', { siege: true, etat: 'F' }),
      establishment(HEADLESS, '00020'),
      establishment(HEADLESS, '00038', { siege: true }),
      establishment(NO_ROW, '00017'),
      establishment(NO_ROW, '00025', { siege: true, etat: 'F' }),
    ]);
    await db('rge_certifications').insert([
      rge(`${FULL}00018`, 'Toiture', '2024-01-01', '2027-01-01'),
      rge(`${FULL}00026`, 'Isolation des murs', null, null),
      rge(`${FULL}00026`, 'Chauffage au bois', '2020-01-01', '2025-12-31'),
      rge(`${FULL}00018`, 'Pompe à chaleur', '2026-06-01', '2028-06-01'),
      rge(`${ESTABLISHMENTS}00028`, 'Fenêtres', '2025-01-01', TODAY),
    ]);
    await db('company_registers').insert([
      register(FULL, 12345.67, [{ type: 'personne_physique', nom: 'LE GALL', prenoms: 'Anne', qualite: 'Gérant', annee_naissance: 1971, siren: null, denomination: null }]),
      register(UNIT_ALONE, null, []),
      register(REGISTER_ONLY, 1000, [{ type: 'personne_morale', nom: null, prenoms: null, qualite: 'Président', annee_naissance: null, siren: FULL, denomination: 'CHARPENTES' }]),
    ]);
    await db('company_accounts').insert([
      account(FULL, '2024-12-31', 'C', 1_000_000.1),
      account(FULL, '2024-12-31', 'K', 9_000_000),
      account(FULL, '2023-12-31', 'S', 900_000),
      account(FULL, '2022-12-31', 'S', 800_000, true),
      account(FLAGGED, '2024-06-30', 'S', null),
      account(FLAGGED, '2023-06-30', 'S', 0),
    ]);
    // 22 proceedings of FULL (two of them the same day), one of another family; one of CEASED.
    const announcements = [
      ...Array.from({ length: 22 }, (_, i) => announcement(`A${String(i).padStart(3, '0')}`, FULL, `2025-${String(1 + (i % 11)).padStart(2, '0')}-0${1 + (i % 2)}`, 'collective', i % 3 ? 'Jugement d’ouverture' : null)),
      announcement('B000', FULL, '2025-12-30', 'vente', null),
      announcement('C000', CEASED, '2024-02-02', 'retablissement_professionnel', 'Clôture'),
    ];
    await db('announcements').insert(announcements.map((a) => a.row));
    await db('announcement_sirens').insert(announcements.map((a) => a.link));
  });
  after(async () => m.close());

  const cases: [string, string, (parts: RecordParts) => void][] = [
    [
      'a unit with its head office, RGE, register, accounts and proceedings',
      FULL,
      ({ view, proceedings, details }) => {
        expect(view?.company?.denomination).to.equal(`SOCIETE ${FULL}`);
        expect(view?.establishment).to.include({ siret: `${FULL}00018`, siege: true, enseigne: 'CHARPENTES' });
        expect(view?.rge.map((r) => r.domaine).sort()).to.deep.equal(['Isolation des murs', 'Toiture']);
        expect(proceedings.map((p) => p.id)).to.have.length(MAX_PROCEEDINGS);
        expect(proceedings.map((p) => p.date_parution)).to.deep.equal(proceedings.map((p) => p.date_parution).sort().reverse());
        expect(proceedings.some((p) => p.id === 'B000')).to.equal(false);
        expect(details.capital).to.equal(12345.67);
        expect(details.officers).to.have.length(1);
        expect(details.years.map((y) => [y.exercice, y.type_bilan, y.chiffre_affaires, y.ebe])).to.deep.equal([
          ['2024-12-31', 'C', 1_000_000.1, 0.1 + 0.2],
          ['2023-12-31', 'S', 900_000, 0.1 + 0.2],
          ['2022-12-31', 'S', null, null],
        ]);
      },
    ],
    [
      'a unit without NIC: the establishment flagged head office; accounts without register',
      FLAGGED,
      ({ view, proceedings, details }) => {
        expect(view?.establishment?.siret).to.equal(`${FLAGGED}00029`);
        expect(view?.rge).to.deep.equal([]);
        expect(proceedings).to.deep.equal([]);
        expect(details.capital).to.equal(null);
        expect(details.officers).to.deep.equal([]);
        expect(details.years.map((y) => y.chiffre_affaires)).to.deep.equal([null, 0]);
      },
    ],
    [
      'a unit whose NIC names no establishment imported: of the two flagged head office, the open one',
      HEADLESS,
      ({ view }) => {
        expect(view?.company?.siren).to.equal(HEADLESS);
        expect(view?.establishment).to.include({ siret: `${HEADLESS}00038`, siege: true, etat: 'A' });
      },
    ],
    [
      'establishments without any companies row: the head office, closed as it is',
      NO_ROW,
      ({ view }) => {
        expect(view?.company).to.equal(null);
        expect(view?.establishment).to.include({ siret: `${NO_ROW}00025`, siege: true, etat: 'F' });
      },
    ],
    [
      'a unit without establishment, its register without capital',
      UNIT_ALONE,
      ({ view, details }) => {
        expect(view?.company?.siren).to.equal(UNIT_ALONE);
        expect(view?.establishment).to.equal(null);
        expect(details).to.deep.equal({ capital: null, officers: [], years: [] });
      },
    ],
    [
      'establishments without their unit: the open one, and its RGE ending today',
      ESTABLISHMENTS,
      ({ view, details }) => {
        expect(view?.company).to.equal(null);
        expect(view?.establishment).to.include({ siret: `${ESTABLISHMENTS}00028`, siege: false });
        expect(view?.rge.map((r) => r.domaine)).to.deep.equal(['Fenêtres']);
        expect(details).to.deep.equal({ capital: null, officers: [], years: [] });
      },
    ],
    [
      'a company known by the register alone',
      REGISTER_ONLY,
      ({ view, details }) => {
        expect(view).to.deep.include({ company: null, establishment: null, rge: [] });
        expect(view?.register).to.include({ siren: REGISTER_ONLY, denomination: `REGISTRE ${REGISTER_ONLY}`, siege_commune: 'RENNES' });
        expect(details.capital).to.equal(1000);
        expect(details.officers[0]).to.include({ siren: FULL });
      },
    ],
    [
      'a ceased company, its closed head office and its proceeding',
      CEASED,
      ({ view, proceedings }) => {
        expect(view?.company?.etat).to.equal('C');
        expect(view?.establishment).to.include({ siret: `${CEASED}00015`, etat: 'F' });
        expect(proceedings).to.deep.equal([
          { siren: CEASED, id: 'C000', date_parution: '2024-02-02', famille: 'retablissement_professionnel', nature: 'Clôture', date_jugement: '2024-02-02', tribunal: 'TRIBUNAL DE COMMERCE DE BREST' },
        ]);
      },
    ],
    [
      'an unknown SIREN',
      UNKNOWN,
      (parts) => {
        expect(parts).to.deep.equal({ view: null, proceedings: [], details: { capital: null, officers: [], years: [] } });
      },
    ],
  ];

  for (const [title, siren, check] of cases) {
    it(title, async () => {
      const reference = await separately(m.db, { siren }, TODAY);
      check(reference);
      expect(canonical(await recordPartsBySiren(m.db, siren, TODAY))).to.equal(canonical(reference));
    });
  }

  it('reads every establishment by SIRET as the separate reads do (its unit or none, its own RGE), an unknown SIRET as none', async () => {
    const sirets = [...((await m.db('establishments').orderBy('siret').pluck('siret')) as string[]), `${UNKNOWN}00011`];
    for (const siret of sirets) {
      const reference = await separately(m.db, { siret }, TODAY);
      expect(canonical(await recordPartsBySiret(m.db, siret, TODAY)), siret).to.equal(canonical(reference));
    }
    expect((await recordPartsBySiret(m.db, `${FULL}00026`, TODAY)).view?.rge.map((r) => r.domaine)).to.deep.equal(['Isolation des murs']);
    expect((await recordPartsBySiret(m.db, `${ESTABLISHMENTS}00010`, TODAY)).view).to.deep.include({ company: null, rge: [] });
    expect((await recordPartsBySiret(m.db, `${UNKNOWN}00011`, TODAY)).view).to.equal(null);
  });
});

describe('company records over the demo set', function () {
  this.timeout(300000);
  const DAY = '2026-03-05';
  let database: MigratedDatabase;
  let dir: string;

  before(async () => {
    database = await openMigratedDatabase();
    const { db } = database;
    dir = mkdtempSync(join(tmpdir(), 'record-parts-'));
    const demo = await writeDemoData({ scale: 'small', outDir: dir, seed: 1, today: DAY });
    const silent = () => ({ update: () => undefined, stop: () => undefined });
    for (const source of ['sirene-unites', 'sirene-etablissements', 'rge', 'rne', 'ratios', 'bodacc'] as const)
      for (const file of demo.files.filter((f) => f.source === source && !f.name.endsWith('.jsonl'))) await importFile(db, IMPORTERS[source] as never, file.path, { progress: silent });
    // The cases the demo set does not hold, a few companies each: a head office not under
    // nic_siege, none given, establishments only (a provisional unit, or no companies row),
    // the register only (a provisional unit, or no companies row).
    const sirens = (await db('companies').orderBy('siren').pluck('siren')) as string[];
    const pick = (i: number) => sirens.slice(i, i + 3);
    await db('companies').whereIn('siren', pick(10)).update({ nic_siege: '99999' });
    await db('companies').whereIn('siren', pick(20)).update({ nic_siege: null });
    await db('companies').whereIn('siren', [...pick(30), ...pick(40)]).update({ unit_known: false });
    await db('companies').whereIn('siren', [...pick(50), ...pick(60)]).delete();
    const registerOnly = [...pick(40), ...pick(60)];
    await db('rge_certifications').whereIn('siret', db('establishments').select('siret').whereIn('siren', registerOnly)).delete();
    await db('establishments').whereIn('siren', registerOnly).delete();
  });
  after(async () => {
    await database?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('reads every SIREN known (and an unknown one) as the separate reads do', async () => {
    const { db } = database;
    const sirens = [
      ...new Set([...((await db('companies').pluck('siren')) as string[]), ...((await db('establishments').pluck('siren')) as string[]), ...((await db('company_registers').pluck('siren')) as string[])]),
      '000000001',
    ].sort();
    const seen = { registerOnly: 0, establishmentsOnly: 0, closed: 0, proceedings: 0, accounts: 0, rge: 0 };
    for (const siren of sirens) {
      const reference = await separately(db, { siren }, DAY);
      expect(canonical(await recordPartsBySiren(db, siren, DAY)), siren).to.equal(canonical(reference));
      const { view, proceedings, details } = reference;
      if (view?.register) seen.registerOnly++;
      if (view && !view.company && view.establishment) seen.establishmentsOnly++;
      if (view?.company?.etat === 'C') seen.closed++;
      if (proceedings.length) seen.proceedings++;
      if (details.years.length) seen.accounts++;
      if (view?.rge.length) seen.rge++;
    }
    // Every case met, so that the comparison covers it.
    for (const [what, n] of Object.entries(seen)) expect(n, what).to.be.greaterThan(0);
  });

  it('reads establishments by SIRET as the separate reads do', async () => {
    const { db } = database;
    const all = (await db('establishments').orderBy('siret').pluck('siret')) as string[];
    const unitless = (await db('establishments as e').whereNotExists(db('companies as c').select(db.raw('1')).whereRaw('c.siren = e.siren').where('c.unit_known', true)).pluck('e.siret')) as string[];
    expect(unitless.length, 'establishments without their unit').to.be.greaterThan(0);
    for (const siret of new Set([...all.filter((_, i) => i % 5 === 0), ...unitless])) {
      const reference = await separately(db, { siret }, DAY);
      expect(canonical(await recordPartsBySiret(db, siret, DAY)), siret).to.equal(canonical(reference));
    }
  });
});
