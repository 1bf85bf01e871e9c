// Real DVF files (geo-dvf and the DVF Etalab variant) import as one sale per mutation with its premises and parcels, in both reading paths; a mutation's lines are merged within a file even when not consecutive, replaced whole by another file, idempotent on id_mutation, and a bad line sets its mutation aside with its reason.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { importFailure, importFile, type ImportReport } from '../../../src/import/run.js';
import { IMPORTERS } from '../../../src/domains/importers.js';
import { DVF_LAYOUTS } from '../../../src/domains/sales/import-dvf.js';
import { decodeParcels, decodePremises } from '../../../src/domains/sales/rows.js';
import type { Database } from '../../../src/platform/db/database.js';
import { openMigratedDatabase, type MigratedDatabase } from '../../helpers/service.js';

// Published files, read where they are (never copied into the project).
const SAMPLES = fileURLToPath(new URL('../../../../shared/real-samples/dvf/', import.meta.url));
const GEO = join(SAMPLES, 'geo-dvf-2024-dep01-thimothe-das-example.csv');
const VARIANT = join(SAMPLES, 'dvf-etalab-variant-2023-thimothe-das-dvf.csv');
const silent = () => ({ update: () => undefined, stop: () => undefined });

/** The source's lines, by header names (no quoted comma in these files' fields). */
function sourceLines(path: string): Record<string, string>[] {
  const [header, ...lines] = readFileSync(path, 'utf8').split('\n').filter(Boolean);
  const names = (header as string).split(',');
  return lines.map((l) => Object.fromEntries(l.split(',').map((v, i) => [names[i], v.replace(/^"|"$/g, '')])));
}

for (const readIn of ['thread', 'worker'] as const)
  describe(`DVF real samples (${readIn === 'worker' ? 'read in a thread of their own' : "read in the import's thread"})`, function () {
    this.timeout(30000);
    let database: MigratedDatabase;
    let db: Database;
    let dir: string;
    // Small batches: a mutation's lines and its merges cross batch boundaries.
    const run = (path: string, batchSize = 2): Promise<ImportReport> => importFile(db, IMPORTERS.dvf as never, path, { progress: silent, batchSize, readIn });
    const sale = (id: string) => db('sales').where({ id_mutation: id }).first();
    const temp = (name: string, content: string) => {
      const path = join(dir, name);
      writeFileSync(path, content);
      return path;
    };

    before(async () => {
      database = await openMigratedDatabase();
      db = database.db;
      dir = mkdtempSync(join(tmpdir(), 'dvf-samples-'));
    });
    after(async () => {
      await database.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it('geo-dvf 2024 (77 lines, 6 mutations): one sale per mutation, premises and parcels kept once', async () => {
      const report = await run(GEO);
      expect(report).to.include({ read: 6, inserted: 6, updated: 0, skipped: 0, stopped: null });
      expect(importFailure(report, DVF_LAYOUTS)).to.equal(null);
      const lines = sourceLines(GEO);
      expect(lines).to.have.length(77);
      for (const id of new Set(lines.map((l) => l.id_mutation))) {
        const first = lines.find((l) => l.id_mutation === id) as Record<string, string>;
        expect(await sale(id as string), id).to.include({ date_mutation: first.date_mutation, nature_mutation: first.nature_mutation, valeur_fonciere: Number(first.valeur_fonciere), code_commune: first.code_commune, nom_commune: first.nom_commune, code_postal: first.code_postal, departement: '01' });
      }
      // 2024-4: four lines, two of them identical: two dependencies and a 89 m² flat of 4 rooms.
      const flat = await sale('2024-4');
      expect(flat).to.include({ type_local: 'Appartement', surface_bati: 89, nombre_pieces: 4, prix_m2: Math.round(329500 / 89), nombre_locaux: 3, nombre_parcelles: 1, adresse: '29 PL DU JURA', longitude: 6.058695, latitude: 46.332212 });
      expect(decodePremises(flat.locaux).map((l: { type_local: string; lots: { numero: string }[] }) => [l.type_local, l.lots.map((x) => x.numero)])).to.deep.equal([
        ['Dépendance', ['50']],
        ['Dépendance', ['175', '29']],
        ['Appartement', ['175', '29']],
      ]);
      // 2024-5: 69 lines of woods and meadows, one repeated: 43 parcels, land only.
      const land = await sale('2024-5');
      const source = lines.filter((l) => l.id_mutation === '2024-5');
      const parts = new Map(source.map((l) => [`${l.id_parcelle}|${l.code_nature_culture}|${l.surface_terrain}`, Number(l.surface_terrain)]));
      expect(land).to.include({ type_local: null, prix_m2: null, nombre_locaux: 0, nombre_parcelles: new Set(source.map((l) => l.id_parcelle)).size, surface_terrain: [...parts.values()].reduce((a, b) => a + b, 0) });
      expect(land.nombre_parcelles).to.equal(43);
      expect(decodeParcels(land.parcelles)).to.have.length(parts.size);
      expect(await sale('2024-1')).to.include({ valeur_fonciere: 346.5, surface_terrain: 99, adresse: 'LE DELIVRE' });
    });

    it('the DVF Etalab variant (40 lines, 21 mutations): unpadded disposition, quoted street, section_prefixe, two decimals', async () => {
      const report = await run(VARIANT);
      expect(report).to.include({ read: 21, inserted: 21, updated: 0, skipped: 0, stopped: null });
      const s = await sale('2021-503480');
      expect(s).to.include({ date_mutation: '2021-01-11', valeur_fonciere: 239000, code_commune: '33281', nom_commune: 'Mérignac', code_postal: '33700', departement: '33', type_local: 'Appartement', surface_bati: 63, nombre_pieces: 3, prix_m2: 3794, nombre_locaux: 3, adresse: '19 AV HENRI BARBUSSE' });
      expect(decodeParcels(s.parcelles)).to.deep.equal([{ id_parcelle: '33281000BO0529', section_prefixe: '000BO', nature_culture: null, nature_culture_speciale: null, surface_terrain: null }]);
      const carrez = decodePremises((await sale('2021-503827')).locaux).find((l: { type_local: string }) => l.type_local === 'Appartement');
      expect(carrez).to.deep.equal({ type_local: 'Appartement', code_type_local: '2', surface_reelle_bati: 45, nombre_pieces_principales: 2, id_parcelle: '33281000BO0529', lots: [{ numero: '51', surface_carrez: 45.67 }], nombre_lots: 1 });
      expect(await sale('2023-407914')).to.include({ type_local: 'Dépendance', prix_m2: null, valeur_fonciere: 20000 });
    });

    it('re-importing a file changes nothing and keeps when each sale entered the service', async () => {
      const before = await db('sales').orderBy('id_mutation').select();
      const report = await run(GEO);
      expect(report).to.include({ read: 6, inserted: 0, updated: 6, skipped: 0 });
      const after = await db('sales').orderBy('id_mutation').select();
      expect(after.map(({ updated_at: _u, ...r }) => r)).to.deep.equal(before.map(({ updated_at: _u, ...r }) => r));
    });

    it('merges the lines of a mutation that come back later in the same file; another file replaces the sale whole', async () => {
      const [header, ...lines] = readFileSync(VARIANT, 'utf8').split('\n').filter(Boolean);
      // 2021-503480's three lines, split around other mutations.
      const own = lines.filter((l) => l.startsWith('2021-503480,'));
      const others = lines.filter((l) => !l.startsWith('2021-503480,')).slice(0, 6);
      const split = temp('split.csv', [header, own[0], ...others, own[1], own[2]].join('\n').replace(/2021-503480/g, 'X-1'));
      const report = await run(split);
      expect(report).to.include({ read: 6, skipped: 0 });
      expect(report.inserted + report.updated).to.equal(6);
      expect(await sale('X-1')).to.include({ nombre_locaux: 3, type_local: 'Appartement', surface_bati: 63, prix_m2: 3794 });
      // Another file with only the flat's line: the sale is replaced, not merged.
      const alone = temp('alone.csv', [header, own[1]].join('\n').replace(/2021-503480/g, 'X-1'));
      expect(await run(alone)).to.include({ read: 1, inserted: 0, updated: 1 });
      expect(await sale('X-1')).to.include({ nombre_locaux: 1, type_local: 'Appartement', surface_bati: 63 });
    });

    it('sets aside a mutation with an unreadable line, with its line and reason; a file of another layout fails', async () => {
      const [header, ...lines] = readFileSync(VARIANT, 'utf8').split('\n').filter(Boolean);
      const bad = (lines[1] as string).replace('2023-404548', 'Y-1').replace('64.00', 'soixante');
      const wrong = (lines[2] as string).replace('2023-404819', 'Y-2') + ',en trop';
      const path = temp('bad.csv', [header, (lines[0] as string).replace('2023-404548', 'Y-1'), bad, wrong, (lines[4] as string).replace('2023-407914', 'Y-3')].join('\n'));
      const report = await run(path);
      expect(report).to.include({ read: 3, inserted: 1, skipped: 2 });
      // A line that cannot be cut into its columns is reported at once, its mutation's at the mutation's end.
      expect([...report.problems].sort((a, b) => a.position - b.position)).to.deep.equal([
        { position: 2, reason: 'surface réelle bâtie illisible (soixante)' },
        { position: 4, reason: 'nombre de colonnes incorrect (42 au lieu de 41)' },
      ]);
      expect(await sale('Y-1')).to.equal(undefined);
      expect(await sale('Y-3')).to.include({ type_local: 'Dépendance' });
      const other = await run(temp('sirene.csv', 'siren,nic,siret\n123456789,00012,12345678900012\n'));
      expect(other).to.include({ read: 1, inserted: 0, skipped: 1 });
      expect(importFailure(other, DVF_LAYOUTS)).to.include('geo-dvf');
    });
  });
