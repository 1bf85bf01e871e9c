// The Sitadel lists import as published: the real demolition and development lists (two header lines, NUM_PD/ETAT_PD, NUM_PA/ETAT_PA) in both reading paths, the older single-header layout in Latin-1, bad rows skipped with their reason, an idempotent upsert keeping ingested_at, and a permit listed in two lists keeping what each gave.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { importFailure, importFile } from '../../../src/import/run.js';
import { IMPORTERS } from '../../../src/domains/importers.js';
import { CsvSplitter, type CsvRecord } from '../../../src/import/csv.js';
import { SITADEL_LAYOUTS } from '../../../src/domains/permits/import-sitadel.js';
import type { Database } from '../../../src/platform/db/database.js';
import { openMigratedDatabase, type MigratedDatabase } from '../../helpers/service.js';

// Published files, read where they are (never copied into the project).
const SAMPLES = fileURLToPath(new URL('../../../../shared/real-samples/sitadel/', import.meta.url));
const DEMOLIR = join(SAMPLES, 'Liste-des-permis-de-demolir.2026-01.head200.csv');
const AMENAGER = join(SAMPLES, 'Liste-des-permis-damenager.2026-01.head200.csv');
const silent = () => ({ update: () => undefined, stop: () => undefined });

/** The sample's data rows by code name (its second line), parsed apart from the importer's reader. */
function sourceRows(path: string): Record<string, string>[] {
  const out: CsvRecord[] = [];
  const splitter = new CsvSplitter(';');
  splitter.push(readFileSync(path, 'utf8'), out);
  splitter.end(out);
  const [, codes, ...data] = out.map((r) => ('fields' in r ? r.fields : []));
  return data.map((fields) => Object.fromEntries((codes as string[]).map((c, i) => [c, fields[i] as string])));
}

// The older layout: one header line of codes, mixed case, REG/DEP, NATURE_PROJET; Latin-1.
const OLD_HEADER =
  '"REG";"DEP";"COMM";"Type_DAU";"Num_DAU";"Etat_DAU";"DATE_REELLE_AUTORISATION";"DATE_REELLE_DOC";"DATE_REELLE_DAACT";"DPC_AUT";"DPC_DOC";"DPC_DERN";"APE_DEM";"CJ_DEM";"DENOM_DEM";"SIREN_DEM";"SIRET_DEM";"CODPOST_DEM";"LOCALITE_DEM";"REC_ARCHI";"ADR_NUM_TER";"ADR_TYPEVOIE_TER";"ADR_LIBVOIE_TER";"ADR_LIEUDIT_TER";"ADR_LOCALITE_TER";"ADR_CODPOST_TER";"sec_cadastre1";"num_cadastre1";"SUPERFICIE_TERRAIN";"NATURE_PROJET";"NB_LGT_TOT_CREES";"SURF_HAB_CREEE";"SURF_LOC_CREEE"';
const OLD_ROWS = [
  '"76";"34";"34172";"PC";"034172 17 C0123";"5";"2017-03-15";"2017-09-01";"";"2017-03";"2017-09";"2017-10";"41.20A";"5710";"SAS PROMOLOGIS HÉRAULT";"512345675";"51234567500016";"34000";"MONTPELLIER";"true";"12";"RUE";"DE L\'ÉGLISE";"";"MONTPELLIER";"34000";"AB";"0012";"1250";"1";"24";"1630";"0"',
  '"76";"34";"34172";"DP";"03417218C0007";"2";"2018-01-22";"";"";"2018-01";"";"2018-02";"";"";"";"";"";"34070";"MONTPELLIER";"false";"";"";"";"LES GARRIGUES";"MONTPELLIER";"0";"";"";"";"2";"1";"45";""',
  '"76";"34";"34172";"XX";"03417218C0008";"2";"2018-01-22";"";"";"";"";"";"";"";"";"";"";"";"";"";"";"";"";"";"";"";"";"";"";"";"";"";""',
  '"76";"34";"99999";"PC";"03417218C0009";"2";"2018-01-22";"";"";"";"";"";"";"";"";"";"";"";"";"";"";"";"";"";"";"";"";"";"";"";"";"";""',
  '"76";"34";"34172";"PC";"03417218C0010";"3";"2018-01-22";"";"";"";"";"";"";"";"";"";"";"";"";"";"";"";"";"";"";"";"";"";"";"";"";"";""',
  '"76";"34";"34172";"PC";"03417218C0011";"2";"31/02/2018";"";"";"";"";"";"";"";"";"";"";"";"";"";"";"";"";"";"";"";"";"";"";"";"";"";""',
];

for (const readIn of ['thread', 'worker'] as const)
  describe(`Sitadel lists (${readIn === 'worker' ? 'read in a thread of their own' : "read in the import's thread"})`, function () {
    this.timeout(30000);
    let database: MigratedDatabase;
    let db: Database;
    let dir: string;
    const run = (path: string, batchSize = 50) => importFile(db, IMPORTERS.permis as never, path, { progress: silent, batchSize, readIn });
    const permit = (id: string) => db('permits').where({ id }).first();

    before(async () => {
      database = await openMigratedDatabase();
      db = database.db;
      dir = mkdtempSync(join(tmpdir(), 'sitadel-'));
    });
    after(async () => {
      await database.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it('imports the real demolition list (two header lines, NUM_PD/ETAT_PD) field by field', async () => {
      const report = await run(DEMOLIR);
      expect(report).to.include({ read: 200, inserted: 200, updated: 0, skipped: 0, stopped: null });
      expect(importFailure(report, SITADEL_LAYOUTS)).to.equal(null);
      for (const r of sourceRows(DEMOLIR).slice(0, 40)) {
        const stored = await permit(`PD${r.NUM_PD}`);
        expect(stored, r.NUM_PD).to.include({
          numero: r.NUM_PD,
          type: 'PD',
          etat: r.ETAT_PD,
          date_autorisation: r.DATE_REELLE_AUTORISATION,
          commune: r.COMM,
          departement: r.DEP_CODE,
          localite: r.ADR_LOCALITE_TER || null,
          demandeur: r.DENOM_DEM || null,
          siren_demandeur: r.SIREN_DEM || null,
          siret_demandeur: r.SIRET_DEM || null,
          source_updated: r.DPC_DERN,
        });
        expect(stored.superficie_terrain).to.equal(r.SUPERFICIE_TERRAIN ? Number(r.SUPERFICIE_TERRAIN) : null);
        // Demolition lists have no housing nor surface columns.
        expect(stored).to.include({ logements: null, surface_creee: null });
      }
      expect(await permit('PD03155512A0079')).to.include({
        demandeur: "CENTRE NATIONAL D'ETUDES SPATIALES",
        siren_demandeur: '775665912',
        categorie_juridique_demandeur: '4110',
        activite_demandeur: '72.19Z',
        adresse: '18 AV EDOUARD BELIN',
        code_postal: null,
      });
      // A private applicant: no name, no SIREN, nothing of the applicant's own address.
      const privateOne = await permit('PD03155512D0085');
      expect(privateOne).to.include({ demandeur: null, siren_demandeur: null, code_postal: null, adresse: '5 ALLEE ANTONIO MACHADO' });
      expect(JSON.stringify(privateOne)).to.not.match(/MARIGNAC|33697/i);
      const states = await db('permits').where({ type: 'PD' }).select('etat').count('* as n').groupBy('etat').orderBy('etat');
      expect(states.map((s: Record<string, unknown>) => [s.etat, Number(s.n)])).to.deep.equal([['2', 194], ['4', 4], ['6', 2]]);
    });

    it('imports the real development list (NUM_PA/ETAT_PA) with its worksite dates, idempotently', async () => {
      const first = await run(AMENAGER);
      expect(first).to.include({ read: 200, inserted: 200, updated: 0, skipped: 0, stopped: null });
      const source = sourceRows(AMENAGER);
      for (const r of source.slice(0, 40)) {
        expect(await permit(`PA${r.NUM_PA}`), r.NUM_PA).to.include({
          type: 'PA',
          etat: r.ETAT_PA,
          date_autorisation: r.DATE_REELLE_AUTORISATION,
          date_ouverture_chantier: r.DATE_REELLE_DOC || null,
          date_achevement: r.DATE_REELLE_DAACT || null,
          annee_depot: Number(r.AN_DEPOT),
          demandeur: r.DENOM_DEM || null,
        });
      }
      expect(await permit('PA03155512M0004')).to.include({
        etat: '6',
        date_ouverture_chantier: '2013-06-27',
        date_achevement: '2013-06-30',
        demandeur: 'SNC KAUFMAN & BROAD PROMOTION 3',
        siren_demandeur: '444266381',
        superficie_terrain: 18737,
        adresse: 'RUE POUTIER',
      });
      const ingested = (await permit('PA03155512M0004')).ingested_at;
      const again = await run(AMENAGER);
      expect(again).to.include({ read: 200, inserted: 0, updated: 200, skipped: 0 });
      expect((await permit('PA03155512M0004')).ingested_at).to.equal(ingested);
      expect(Number((await db('permits').count('* as n'))[0]?.n)).to.equal(400);
    });

    it('finds the imported permits through the search index (applicant, kind words, locality)', async () => {
      const { searchPermits } = await import('../../../src/domains/permits/store.js');
      const { parseQuery } = await import('../../../src/platform/search/query-syntax.js');
      const page = { offset: 0, limit: 50, countCap: 1000 };
      expect((await searchPermits(db, parseQuery('kaufman broad'), {}, page)).ids).to.include('PA03155512M0004');
      expect((await searchPermits(db, parseQuery('etudes spatiales'), { types: ['PD'] }, page)).ids).to.include('PD03155512A0079');
      expect((await searchPermits(db, parseQuery('demolition toulouse'), {}, page)).total).to.equal(200);
    });

    it('reads the older single-header layout (mixed-case codes, REG/DEP, Latin-1) and skips bad rows with their reason', async () => {
      const path = join(dir, 'PC_DP_creant_logements_2017_2022.csv');
      writeFileSync(path, Buffer.from([OLD_HEADER, ...OLD_ROWS].join('\r\n') + '\r\n', 'latin1'));
      const report = await run(path);
      expect(report).to.include({ read: 6, inserted: 2, skipped: 4, stopped: null });
      expect(report.problems).to.deep.equal([
        { position: 4, reason: 'sorte d’autorisation absente ou inconnue (XX) : PC, DP, PA ou PD attendue' },
        { position: 5, reason: 'code commune du terrain invalide (99999)' },
        { position: 6, reason: 'état d’avancement inconnu (3) : 2, 4, 5 ou 6 attendu' },
        { position: 7, reason: 'date d’autorisation illisible (31/02/2018)' },
      ]);
      expect(await permit('PC03417217C0123')).to.include({
        numero: '03417217C0123',
        etat: '5',
        date_ouverture_chantier: '2017-09-01',
        departement: '34',
        demandeur: 'SAS PROMOLOGIS HÉRAULT',
        siren_demandeur: '512345675',
        nature_projet: 'Nouvelle construction',
        logements: 24,
        surface_habitation_creee: 1630,
        surface_locaux_creee: 0,
        surface_creee: 1630,
        adresse: "12 RUE DE L'ÉGLISE",
        code_postal: '34000',
      });
      expect(await permit('DP03417218C0007')).to.include({ nature_projet: 'Travaux sur construction existante', logements: 1, surface_creee: 45, adresse: 'LES GARRIGUES', demandeur: null });
    });

    it('keeps the housing count of a permit listed again in the premises list (no NB_LGT_TOT_CREES there)', async () => {
      const codes = ['REG_CODE', 'DEP_CODE', 'COMM', 'TYPE_DAU', 'NUM_DAU', 'ETAT_DAU', 'DATE_REELLE_AUTORISATION', 'DPC_DERN', 'DENOM_DEM', 'SIREN_DEM', 'ADR_LOCALITE_TER', 'SURF_HAB_CREEE', 'SURF_LOC_CREEE'];
      const labels = codes.map((c) => `"Libellé de ${c}"`);
      const housing = join(dir, 'logements.csv');
      writeFileSync(housing, [labels.join(';'), [...codes, 'NB_LGT_TOT_CREES'].map((c) => `"${c}"`).join(';'), '"53";"29";"29232";"PC";"02923224A0042";2;"2024-05-02";"2024-06";"SCI DU STEIR";"123456782";"QUIMPER";820;0;12'].join('\n').replace(labels.join(';'), `${labels.join(';')};"Nombre de logements"`));
      const premises = join(dir, 'locaux.csv');
      writeFileSync(premises, [labels.join(';'), codes.map((c) => `"${c}"`).join(';'), '"53";"29";"29232";"PC";"02923224A0042";5;"2024-05-02";"2024-09";"SCI DU STEIR";"123456782";"QUIMPER";820;150'].join('\n'));
      expect(await run(housing)).to.include({ inserted: 1, skipped: 0 });
      expect(await run(premises)).to.include({ updated: 1, skipped: 0 });
      expect(await permit('PC02923224A0042')).to.include({ logements: 12, etat: '5', surface_locaux_creee: 150, surface_creee: 970, source_updated: '2024-09' });
      // An older version (an earlier month of update) never replaces a newer one.
      expect(await run(housing)).to.include({ kept: 1 });
      expect(await permit('PC02923224A0042')).to.include({ etat: '5' });
    });

    it('fails a file without the Sitadel codes line, saying which layouts are understood', async () => {
      const path = join(dir, 'autre.csv');
      writeFileSync(path, '"a";"b"\n"c";"d"\n"1";"2"\n');
      const report = await run(path);
      expect(report).to.include({ read: 0, inserted: 0 });
      expect(report.stopped?.reason).to.match(/^en-tête Sitadel introuvable/);
      expect(importFailure(report, SITADEL_LAYOUTS)).to.not.equal(null);
    });
  });
