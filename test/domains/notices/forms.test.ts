// BOAMP notices in the current forms (eForms with one lot or several, FNSimple, MAPA) import with their CPV codes, lots, buyer SIRET, deadline, estimated value and procedure; award notices' results become awards; corrections and cancellations change the notice they name, whichever arrives first, and a re-import changes nothing more.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { importFile } from '../../../src/import/run.js';
import { IMPORTERS } from '../../../src/domains/importers.js';
import { readDonnees } from '../../../src/domains/notices/donnees.js';
import { noticeById, searchNotices } from '../../../src/domains/notices/store.js';
import { awardsByKeys } from '../../../src/domains/awards/store.js';
import type { Database } from '../../../src/platform/db/database.js';
import { openMigratedDatabase, type MigratedDatabase } from '../../helpers/service.js';

const EXCERPTS = fileURLToPath(new URL('./fixtures/boamp-forms-excerpts.json', import.meta.url));
const REAL = fileURLToPath(new URL('../../../../shared/real-samples/boamp/boamp-explore-v2.1-records-limit5-jpbenga.json', import.meta.url));
const silent = () => ({ update: () => undefined, stop: () => undefined });
type Answer = { total_count: number; results: Record<string, unknown>[] };

describe('BOAMP forms (eForms, FNSimple, MAPA), corrections and award results', function () {
  this.timeout(60000);
  let database: MigratedDatabase;
  let db: Database;
  let dir: string;
  const excerpts = JSON.parse(readFileSync(EXCERPTS, 'utf8')) as Answer;
  const write = (name: string, results: Record<string, unknown>[]) => {
    const path = join(dir, name);
    writeFileSync(path, JSON.stringify({ total_count: results.length, results }));
    return path;
  };
  const run = (path: string, at = '2026-11-25T08:00:00.000Z') => importFile(db, IMPORTERS.boamp as never, path, { progress: silent, now: () => new Date(at) });
  const notice = async (idweb: string) => (await noticeById(db, idweb)) as NonNullable<Awaited<ReturnType<typeof noticeById>>>;

  before(async () => {
    database = await openMigratedDatabase();
    db = database.db;
    dir = mkdtempSync(join(tmpdir(), 'boamp-forms-'));
  });
  after(async () => {
    await database.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('reads an eForms notice with several lots (an array): CPV main first, per lot, buyer SIRET, values, earliest deadline, procedure', () => {
    const d = readDonnees(excerpts.results[0]?.donnees);
    expect(d).to.include({ family: 'EFORMS', form: 'ContractNotice', buyerSiret: '21290232000014', buyerName: 'Commune de Quimper', estimatedValue: 1250000, procedure: 'Procédure ouverte' });
    expect(d.cpvCodes).to.deep.equal(['45214200-2', '45261000-4', '45261210-9', '45262660-5', '45311000-0']);
    expect(d.lots).to.deep.equal([
      { numero: 'LOT-0001', titre: 'Couverture', cpv_codes: ['45261000-4', '45261210-9', '45262660-5'], valeur_estimee: 450000 },
      { numero: 'LOT-0002', titre: 'Électricité', cpv_codes: ['45311000-0'], valeur_estimee: 800000 },
    ]);
    expect(d.deadline).to.equal('2026-09-15T10:00:00.000Z');
    // Contact details of the notice are never read.
    expect(JSON.stringify(d)).to.not.match(/marches@exemple|\+33/);
  });

  it('reads one lot given as an object, and the national forms (FNSimple with lots, MAPA)', () => {
    const one = readDonnees(excerpts.results[1]?.donnees);
    expect(one.lots).to.deep.equal([{ numero: 'LOT-0000', titre: 'Isolation du collège', cpv_codes: ['45321000-3'], valeur_estimee: null }]);
    expect(one).to.include({ buyerSiret: '22290001700012', procedure: 'Procédure restreinte', deadline: '2026-10-02T10:00:00.000Z' });
    const fns = readDonnees(excerpts.results[2]?.donnees);
    expect(fns).to.include({ family: 'FNSimple', form: 'initial', buyerSiret: '21290103300015', estimatedValue: 320000, procedure: 'Procédure adaptée' });
    expect(fns.cpvCodes).to.deep.equal(['45000000-7', '45453000-7', '45223220-4', '45421000-4']);
    expect(fns.lots.map((l) => [l.numero, l.titre, l.cpv_codes])).to.deep.equal([
      ['1', 'Gros œuvre', ['45223220-4']],
      ['2', 'Menuiseries', ['45421000-4']],
    ]);
    expect(readDonnees(excerpts.results[3]?.donnees)).to.include({ family: 'MAPA', buyerName: 'Commune de Brest' });
    expect(readDonnees(excerpts.results[3]?.donnees).cpvCodes).to.deep.equal(['77310000-6']);
  });

  it('still reads the older notices of the real sample (no family key) for their CPV codes and lots', () => {
    const real = JSON.parse(readFileSync(REAL, 'utf8')) as Answer;
    const chu = real.results.find((r) => r.idweb === '15-31001');
    const d = readDonnees(chu?.donnees);
    expect(d.cpvCodes[0]).to.equal('22852000-7');
    expect(d.lots).to.have.length(1);
    expect(d.lots[0]).to.include({ numero: '1' });
    expect(d.deadline).to.equal('2015-04-24T15:00:00.000Z');
  });

  it('imports the notices: the cpv filter sees eForms notices, lots and buyer SIRET are stored', async () => {
    const report = await run(write('notices.json', excerpts.results.slice(0, 4)));
    expect(report).to.include({ read: 4, inserted: 4, skipped: 0 });
    const n = await notice('26-90001');
    expect(n).to.include({ cpv: '45214200-2', acheteur_siret: '21290232000014', valeur_estimee: 1250000, date_limite: '2026-09-15T10:00:00.000Z' });
    expect(n.lots).to.have.length(2);
    // A deadline only in the notice's donnees is the notice's deadline.
    expect(await notice('26-90002')).to.include({ date_limite: '2026-10-02T10:00:00.000Z', procedure_libelle: 'Procédure restreinte' });
    expect(await db('buyers').where('id', '21290232000014').first('nom', 'siret')).to.deep.equal({ nom: 'Commune de Quimper', siret: '21290232000014' });
    // A lot's CPV code finds its notice.
    const found = await searchNotices(db, null, { cpvPrefix: '45311' }, { offset: 0, limit: 10, countCap: 100 });
    expect(found.ids).to.deep.equal([n.marche_id]);
  });

  it('a correction moves the deadline, a cancellation cancels, each said once; a re-import of the first notice keeps them', async () => {
    const report = await run(write('corrections.json', excerpts.results.slice(4, 6)), '2026-11-25T09:00:00.000Z');
    expect(report).to.include({ read: 2, inserted: 2 });
    const moved = await notice('26-90001');
    expect(moved).to.include({ date_limite: '2026-10-06T10:00:00.000Z', modifie_par: '26-91001', modifie_le: '2026-11-25T09:00:00.000Z' });
    expect(moved.modification).to.equal('date limite fixée au 06/10/2026 par l’avis rectificatif 26-91001');
    const cancelled = await notice('26-90002');
    expect(cancelled).to.include({ etat: 'AVIS_ANNULE', modifie_par: '26-91002' });
    expect(cancelled.modification).to.match(/^avis annulé par l’avis 26-91002 du 02\/09\/2026$/);
    // The first notices again (a synchronisation reading them once more): the changes hold, nothing is said anew.
    await run(write('again.json', excerpts.results.slice(0, 2)), '2026-11-25T10:00:00.000Z');
    expect(await notice('26-90001')).to.include({ date_limite: '2026-10-06T10:00:00.000Z', modifie_le: '2026-11-25T09:00:00.000Z' });
    expect(await notice('26-90002')).to.include({ etat: 'AVIS_ANNULE', modifie_le: '2026-11-25T09:00:00.000Z' });
  });

  it('a correction imported before the notice it corrects applies when that notice comes', async () => {
    const shifted = excerpts.results.slice(0, 1).map((r) => ({ ...r, idweb: '26-80001' }));
    const fix = excerpts.results.slice(4, 5).map((r) => ({ ...r, idweb: '26-81001', annonce_lie: ['26-80001'] }));
    await run(write('fix-first.json', fix));
    await run(write('original-after.json', shifted));
    expect(await notice('26-80001')).to.include({ date_limite: '2026-10-06T10:00:00.000Z', modifie_par: '26-81001' });
  });

  it('an award notice’s results become awards: per lot, amounts, winners by SIRET, a foreign identifier kept as published', async () => {
    const report = await run(write('award.json', excerpts.results.slice(6)));
    expect(report).to.include({ read: 1, inserted: 1 });
    expect(report.notes).to.deep.equal({ 'titulaire d’un avis d’attribution sans SIRET valide gardé tel que publié': 1 });
    const [lot1, lot2] = await awardsByKeys(db, ['boamp:26-95001:LOT-0001:1', 'boamp:26-95001:LOT-0002:2']);
    expect(lot1).to.include({ source: 'boamp', id: '26-95001 LOT-0001', montant: 430000, date_notification: '2026-11-02', cpv: '45261000-4', buyerName: 'Commune de Quimper', objet: 'Rénovation du groupe scolaire — Couverture' });
    expect(lot1?.titulaires).to.deep.equal([{ siret: '73282932000018', siren: '732829320', denomination: 'CHARPENTES DU LEON', identifiant: '73282932000018', type_identifiant: 'SIRET' }]);
    expect(lot2?.titulaires).to.deep.equal([
      { siret: '38347481400021', siren: '383474814', denomination: 'ELECTRICITE ARMORICAINE', identifiant: '38347481400021', type_identifiant: 'SIRET' },
      { siret: null, siren: null, denomination: 'Elektro Noord BV', identifiant: '81234567', type_identifiant: 'identifiant publié' },
    ]);
    // The lot closed without a winner makes no award.
    expect(Number((await db('awards').where('award_key', 'like', 'boamp:26-95001:%').count('* as n').first())?.n)).to.equal(2);
  });
});
