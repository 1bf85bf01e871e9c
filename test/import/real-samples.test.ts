// Every real published BOAMP and DECP sample imports through the real importers, in both reading paths; a file that cannot be read to its end keeps what was read before and says where it stopped.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import type { Database } from '../../src/platform/db/database.js';
import { importFailure, importFile, type ImportReport } from '../../src/import/run.js';
import { JSON_LAYOUTS } from '../../src/import/records.js';
import { IMPORTERS } from '../../src/domains/importers.js';
import { IMPORTERS as PANDAS } from './fixtures/pandas-json-importers.js';
import { openMigratedDatabase, type MigratedDatabase } from '../helpers/service.js';

const SAMPLES = fileURLToPath(new URL('../../../shared/real-samples/', import.meta.url));
const sample = (name: string) => join(SAMPLES, name);
const silent = () => ({ update: () => undefined, stop: () => undefined });
const count = async (db: Database, table: string) => Number((await db(table).count<{ n: number | string }[]>('* as n'))[0]?.n);

const BOAMP = 'boamp/boamp-explore-v2.1-records-limit5-jpbenga.json';
const DECP_2019_EXAMPLE = 'decp/decp-2019-official-example-paquet.json';
const DECP_2019_FIXTURE = 'decp/decp-2019-shape-decp-processing-fixture.json';
const DECP_2024_MEGALIS = 'decp/decp-2024-megalis-59920013600241-2024-07-09-01.json';
const DECP_2024_FIXTURE = 'decp/decp-2024-shape-decp-processing-fixture.json';

for (const readIn of ['thread', 'worker'] as const)
  describe(`real BOAMP and DECP samples (${readIn === 'worker' ? 'read in a thread of their own' : "read in the import's thread"})`, function () {
    this.timeout(30000);
    let database: MigratedDatabase;
    let db: Database;
    let dir: string;
    const run = (source: string, path: string, batchSize = 2): Promise<ImportReport> =>
      importFile(db, (IMPORTERS[source] ?? PANDAS[source]) as never, path, { progress: silent, batchSize, readIn });
    const temp = (name: string, content: string | Buffer) => {
      const path = join(dir, name);
      writeFileSync(path, content);
      return path;
    };

    before(async () => {
      database = await openMigratedDatabase();
      db = database.db;
      dir = mkdtempSync(join(tmpdir(), 'import-samples-'));
    });
    after(async () => {
      await database.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it('imports the Opendatasoft Explore answer of BOAMP ({"total_count", "results"}, total_count first)', async () => {
      const report = await run('boamp', sample(BOAMP));
      expect(report).to.include({ read: 4, inserted: 4, updated: 0, skipped: 0, nulls: 0, stopped: null });
      expect(importFailure(report, JSON_LAYOUTS)).to.equal(null);
      const source = (JSON.parse(readFileSync(sample(BOAMP), 'utf8')) as { results: Record<string, unknown>[] }).results;
      for (const record of source) {
        const stored = await db('notices').where({ annonce_id: record.idweb }).first();
        expect(stored, String(record.idweb)).to.include({ objet: record.objet, acheteur_nom: record.nomacheteur, date_parution: record.dateparution });
        expect(JSON.parse(stored.types_marche)).to.deep.equal(record.type_marche);
      }
      expect(JSON.parse((await db('notices').where({ annonce_id: '15-31001' }).first()).departements)).to.deep.equal(['06']);
      const again = await run('boamp', sample(BOAMP));
      expect(again).to.include({ read: 4, inserted: 0, updated: 4 });
    });

    it('imports the official DECP 2019 example ({"$schema", "marches"}), its marché with its SIRET winner only', async () => {
      const report = await run('decp', sample(DECP_2019_EXAMPLE));
      // Record 2 is a concession (autoriteConcedante, concessionnaires): the engine reads it, the importer decides.
      expect(report).to.include({ read: 2, stopped: null });
      expect(report.inserted + report.updated + report.skipped).to.equal(2);
      expect(report.problems.every((p) => p.position === 2)).to.equal(true);
      const award = await db('awards').where({ award_key: '21350238800019:2010345211200' }).first();
      expect(award).to.include({ acheteur_nom: 'Ville de Rennes', objet: 'Entretien des jardins municipaux', montant: 127000, date_notification: '2007-08-13', departement: '35', lieu_code: '35238' });
      expect(await db('award_winners').where({ award_key: '21350238800019:2010345211200' }).select('siret')).to.deep.equal([{ siret: '81223113200026' }]);
    });

    it('imports the DECP 2019 fixture of decp-processing (nested titulaires in modifications)', async () => {
      const report = await run('decp', sample(DECP_2019_FIXTURE));
      expect(report).to.include({ read: 2, stopped: null });
      expect(report.inserted + report.updated + report.skipped).to.equal(2);
      const award = await db('awards').where({ award_key: '21974022200019:2019-VI2022.242' }).first();
      expect(award).to.include({ montant: 137614, date_notification: '2022-11-23', lieu_code: '97430' });
      // The amendment's holders are the ones in force.
      expect(await db('award_winners').where({ award_key: '21974022200019:2019-VI2022.242' }).select('siret')).to.deep.equal([{ siret: '34027049500021' }]);
    });

    it('imports a real DECP 2024 file ({"marches": {"marche": […], "contrat-concession": []}})', async () => {
      const report = await run('decp', sample(DECP_2024_MEGALIS));
      expect(report).to.include({ read: 5, inserted: 5, skipped: 0, nulls: 0, stopped: null });
      const source = (JSON.parse(readFileSync(sample(DECP_2024_MEGALIS), 'utf8')) as { marches: { marche: Record<string, unknown>[] } }).marches.marche;
      for (const record of source) {
        const stored = await db('awards').where({ award_key: `59920013600241:${String(record.id)}` }).first();
        expect(stored, String(record.id)).to.include({ montant: record.montant, date_notification: record.dateNotification, departement: '22' });
      }
      expect(await db('award_winners').where({ award_key: '59920013600241:H9O2024T0000256' }).select('siret')).to.deep.equal([{ siret: '32933888305269' }]);
    });

    it('reads the bare NaN of a pandas-made DECP file as null when the importer says the format carries them', async () => {
      const report = await run('decp-pandas', sample(DECP_2024_FIXTURE));
      expect(report).to.include({ read: 5, nulls: 1, stopped: null });
      expect(importFailure(report, JSON_LAYOUTS)).to.equal(null);
      expect(await db('awards').where({ award_key: '21030042200016:202401L04' }).first()).to.include({ montant: 124557.46, montant_initial: 127835.12, date_notification: '2024-02-08' });
      expect(await db('awards').where({ award_key: '21974022200019:2022VI2022.242' }).first()).to.include({ montant: 137614 });
    });

    it('the decp source reads that NaN as null too (its read() passes { nonFiniteAsNull: true })', async () => {
      const report = await run('decp', sample(DECP_2024_FIXTURE));
      expect(report.stopped).to.equal(null);
      expect(report).to.include({ read: 5, nulls: 1 });
    });

    it('stops at a syntax error in the middle of a file, keeps the batches read before, says where, and fails', async () => {
      const text = readFileSync(sample(BOAMP), 'utf8');
      // A bare NaN in the third record, as pandas writes it: not JSON for BOAMP.
      const third = text.indexOf('"idweb": "15-30976"');
      const broken = `${text.slice(0, third)}"montant": NaN, ${text.slice(third)}`;
      const report = await run('boamp', temp('boamp-nan.json', broken), 1);
      expect(report).to.include({ read: 2, skipped: 0 });
      expect(report.inserted + report.updated).to.equal(2);
      expect(report.stopped?.position).to.equal(3);
      const end = text.lastIndexOf('}', third) + 1;
      expect(report.stopped?.reason).to.equal(`lecture arrêtée à l'enregistrement 3, après l'octet ${Buffer.byteLength(text.slice(0, end))} : syntaxe JSON invalide ; les 2 enregistrements lus avant sont gardés`);
      expect(importFailure(report, JSON_LAYOUTS)).to.match(/lecture arrêtée à l'enregistrement 3/);
      expect((await db('notices').whereIn('annonce_id', ['15-31501', '15-29477']).select('annonce_id')).length).to.equal(2);
    });

    it('stops at the end of a truncated file, keeping the records read before', async () => {
      const text = readFileSync(sample(DECP_2024_MEGALIS));
      const report = await run('decp', temp('decp-tronque.json', text.subarray(0, Math.floor(text.length * 0.7))), 1);
      expect(report.read).to.be.greaterThan(0).and.lessThan(5);
      expect(report.stopped?.reason).to.match(/^lecture arrêtée à l'enregistrement \d, après l'octet \d+ : fichier tronqué/);
      expect(importFailure(report, JSON_LAYOUTS)).to.not.equal(null);
    });

    it('fails a file of another layout: every record skipped, or no list of records at all', async () => {
      const decpAsBoamp = await run('boamp', sample(DECP_2024_MEGALIS));
      expect(decpAsBoamp).to.include({ read: 5, inserted: 0, skipped: 5 });
      expect(importFailure(decpAsBoamp, JSON_LAYOUTS)).to.equal(`${sample(DECP_2024_MEGALIS)} : rien d'importé, les 5 enregistrements lus sont tous écartés ; formats compris : ${JSON_LAYOUTS}.`);
      const before = await count(db, 'notices');
      const noList = await run('boamp', temp('autre.json', '{\n  "total_count": 0,\n  "data": []\n}\n'));
      expect(noList).to.include({ read: 0, inserted: 0 });
      expect(noList.stopped?.reason).to.match(/^format JSON non reconnu : objet aux clés total_count, data, sans liste d'enregistrements/);
      expect(importFailure(noList, JSON_LAYOUTS)).to.not.equal(null);
      const empty = await run('boamp', temp('vide.json', '{"total_count": 0, "results": []}'));
      expect(importFailure(empty, JSON_LAYOUTS)).to.match(/aucun enregistrement trouvé/);
      expect(await count(db, 'notices')).to.equal(before);
    });
  });
