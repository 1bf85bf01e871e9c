// A consultation file in the layouts buyers publish, over real HTTP: pieces kinded by their names (a Q&A register about the CCTP stays one), an Excel DPGF read as its cells show, the buyer's telephone numbers, e-mail and web addresses masked in reading pages, locations and search excerpts (and never indexed) while the download stays the buyer's exact bytes; a new version enters again and the robot reports it as « DCE modifié », once per version.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { importFile } from '../../../src/import/run.js';
import { IMPORTERS } from '../../../src/domains/importers.js';
import { importDce, parseTarget } from '../../../src/domains/dce/ingest.js';
import { runRobotSlot } from '../../../src/domains/robot/run.js';
import { MASK } from '../../../src/import/contact-details.js';
import { Extractor } from '../../../src/platform/extract/extractor.js';
import { docxDocument, pdfDocument, zipOf } from '../../../scripts/demo/documents.js';
import { DPGF_SHEET, excelWorkbook } from '../../platform/extract/fixtures/excel-workbook.js';
import { addDce, createAlert, createOrganisation, eventsOf, iso } from '../../domains/robot/fixtures.js';
import { up as maskStoredPages } from '../../../src/migrations/0027-dce-kinds-and-contact-details.js';
import { DCE_SEARCH } from '../../../src/domains/dce/search-index.js';
import { upsertSearchDocuments } from '../../../src/platform/search/full-text.js';
import { startTestService, type TestService } from '../../helpers/service.js';

const BOAMP = fileURLToPath(new URL('../../../../shared/real-samples/boamp/boamp-explore-v2.1-records-limit5-jpbenga.json', import.meta.url));
const HOUR = 3_600_000;
/** A fixed clock far from the wall clock: the robot's windows are read from it. */
const T0 = new Date('2026-11-24T06:10:00Z');

/** The RC's contact block as buyers write it (telephone, e-mail, buyer profile). */
const RC_CONTACTS = [
  'Article 9 - Renseignements complémentaires',
  'Service de la commande publique, tél. 02 98 98 89 89 ou +33 (0)2 98 98 89 90,',
  'courriel : commande.publique@quimper.bzh, profil acheteur : https://marches.megalis.bretagne.bzh.',
];

describe('consultation files in the real layouts', function () {
  this.timeout(90_000);
  let svc: TestService;
  let dir: string;
  let extractor: Extractor;
  let rcBytes: Uint8Array;
  let marcheId: string;
  const read = (args: Record<string, unknown>) => svc.rest('dce.read', args);

  async function archive(name: string, cctp: string): Promise<string> {
    const path = join(dir, name);
    writeFileSync(
      path,
      await zipOf([
        { name: 'DCE/00_RC_Refection_couverture.pdf', data: rcBytes },
        { name: 'DCE/Lot 02/CCTP_lot_02.docx', data: await docxDocument(['CAHIER DES CLAUSES TECHNIQUES PARTICULIÈRES - LOT 02', cctp]) },
        { name: 'DCE/Lot 02/DPGF_lot_02.xlsx', data: await excelWorkbook(DPGF_SHEET) },
        { name: 'DCE/Questions-Reponses n°1.pdf', data: await pdfDocument([{ lines: ['REGISTRE DES QUESTIONS / RÉPONSES', 'Question 1 : le CCTP (article 3.2) impose-t-il des ardoises d’Espagne ?', 'Réponse : non, ardoises naturelles de qualité équivalente.'] }]) },
        { name: 'DCE/Cadre de réponse technique.docx', data: await docxDocument(['Cadre de réponse technique', '1. Moyens humains affectés au chantier.']) },
        { name: 'DCE/ATTRI1_lot_02.pdf', data: await pdfDocument([{ lines: ['ACTE D’ENGAGEMENT (ATTRI1)'] }]) },
      ]),
    );
    return path;
  }
  const importAt = (at: Date, path: string) => importDce({ db: svc.db, store: svc.dceStore, extractor, now: () => at }, parseTarget('15-31501'), [path]);

  before(async () => {
    svc = await startTestService();
    dir = mkdtempSync(join(tmpdir(), 'dce-real-'));
    extractor = new Extractor();
    await importFile(svc.db, IMPORTERS.boamp as never, BOAMP, { progress: () => ({ update: () => undefined, stop: () => undefined }) });
    marcheId = ((await svc.db('notices').where('annonce_id', '15-31501').first('marche_id')) as { marche_id: string }).marche_id;
    rcBytes = await pdfDocument([{ lines: ['RÈGLEMENT DE LA CONSULTATION', 'Réfection de la couverture en ardoise du groupe scolaire.'] }, { lines: RC_CONTACTS }]);
  });
  after(async () => {
    await extractor.close();
    await svc.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('kinds the pieces by their names, reads the Excel DPGF as shown, masks the contact details and counts them', async () => {
    const report = await importAt(T0, await archive('v1.zip', 'Ardoises naturelles posées au crochet.'));
    expect(report).to.include({ outcome: 'added', version: 1, contactDetailsMasked: 4 });
    const { json } = await read({ marche_id: '15-31501', type: 'sommaire' });
    expect(json.fichiers.map((f: { filename: string; doc_type: string; lot: number | null }) => [f.filename, f.doc_type, f.lot])).to.deep.equal([
      ['DCE/00_RC_Refection_couverture.pdf', 'rc', null],
      ['DCE/ATTRI1_lot_02.pdf', 'ae', 2],
      ['DCE/Cadre de réponse technique.docx', 'cadre_reponse', null],
      ['DCE/Lot 02/CCTP_lot_02.docx', 'cctp', 2],
      ['DCE/Lot 02/DPGF_lot_02.xlsx', 'dpgf', 2],
      ['DCE/Questions-Reponses n°1.pdf', 'questions_reponses', null],
    ]);
    const dpgf = await read({ marche_id: marcheId, type: 'dpgf' });
    expect(dpgf.json.texte).not.to.contain('[object Object]');
    expect(dpgf.json.texte).to.contain('2.1 | Installation de chantier | ens | 1 |  | 0\n2.2 | Dépose de la couverture existante | m² | 412.5 | 18.4 | 7590');
    expect(dpgf.json.texte.match(/LOT 02 - COUVERTURE ZINGUERIE/g)).to.have.length(1);
    const excerpt = await read({ marche_id: marcheId, query: 'ardoises espagne' });
    expect(excerpt.json.results.map((r: { doc_type: string }) => r.doc_type)).to.deep.equal(['questions_reponses']);
  });

  it('never answers the buyer’s contact details: reading page, location and search excerpts; the download is the buyer’s bytes', async () => {
    const rc = await read({ marche_id: marcheId, type: 'rc' });
    expect(rc.status).to.equal(200);
    const texte: string = rc.json.texte;
    expect(texte).to.contain(`tél. ${MASK} ou ${MASK},`).and.contain(`courriel : ${MASK}, profil acheteur : ${MASK}.`);
    expect(texte).not.to.match(/@|98 98|megalis|https?:/);
    for (const answer of [await read({ marche_id: marcheId, query: 'renseignements complémentaires' }), await read({ query: 'commande publique' })]) {
      expect(answer.status).to.equal(200);
      expect(answer.json.results).to.have.length.above(0);
      for (const r of answer.json.results as { extrait: string }[]) expect(r.extrait).not.to.match(/@|98 98|megalis/);
    }
    // The masked details are not in the index either: nothing finds the buyer by them.
    for (const query of ['quimper', 'megalis']) expect((await read({ query })).json.results, query).to.deep.equal([]);

    const link = await svc.rest('dce.download', { marche_id: marcheId, filename: '00_RC_Refection_couverture.pdf' });
    const served = Buffer.from(await (await fetch(link.json.download_url)).arrayBuffer());
    expect(served.equals(Buffer.from(rcBytes))).to.equal(true);
  });

  it('a new version enters again (fresh ingested_at) and the robot reports « DCE modifié » once per version', async () => {
    const org = await createOrganisation(svc.db);
    const alert = await createAlert(svc.db, org, { query: 'ardoises', sources: ['dce'], createdAt: iso(T0.getTime() - HOUR) });
    const run = (at: number) => runRobotSlot({ db: svc.db, publicUrl: svc.url, now: () => new Date(at) });
    const file = (await svc.db('dce_files').where('annonce_id', '15-31501').first('id', 'ingested_at')) as { id: string; ingested_at: string };
    expect(file.ingested_at).to.equal(T0.toISOString());
    await run(T0.getTime() + 2 * HOUR);
    const kinds = async () => (await eventsOf(svc.db, alert)).map((e) => `${e.kind}:${e.record_id}`);
    expect(await kinds()).to.deep.equal([`nouveau_dce:${file.id}`]);

    const v2 = await importAt(new Date(T0.getTime() + 3 * HOUR), await archive('v2.zip', 'Ardoises naturelles posées au clou cuivre.'));
    expect(v2).to.include({ outcome: 'replaced', version: 2 });
    expect(((await svc.db('dce_files').where('id', file.id).first('ingested_at')) as { ingested_at: string }).ingested_at).to.equal(iso(T0.getTime() + 3 * HOUR));
    await run(T0.getTime() + 5 * HOUR);
    expect(await kinds()).to.deep.equal([`nouveau_dce:${file.id}`, `dce_modifie:${file.id}@v2`]);
    const record = JSON.parse((await eventsOf(svc.db, alert))[1]?.record ?? '{}');
    expect(record).to.include({ id: file.id });
    expect(record.titre).to.match(/^DCE modifié : /);
    expect(record.fields).to.include({ version: 2, marche_id: marcheId });

    // The same content again changes nothing; a third version is reported too.
    expect((await importAt(new Date(T0.getTime() + 6 * HOUR), join(dir, 'v2.zip'))).outcome).to.equal('unchanged');
    await run(T0.getTime() + 8 * HOUR);
    expect(await kinds()).to.have.length(2);
    await importAt(new Date(T0.getTime() + 9 * HOUR), await archive('v3.zip', 'Ardoises naturelles, crochets inox.'));
    await run(T0.getTime() + 11 * HOUR);
    expect(await kinds()).to.deep.equal([`nouveau_dce:${file.id}`, `dce_modifie:${file.id}@v2`, `dce_modifie:${file.id}@v3`]);
  });

  it('masks the pages of files imported before the import masked them, in the text kept and in the index (migration 0027)', async () => {
    const id = await addDce(svc.db, { marcheId: null, pages: ['Maîtrise d’œuvre : cabinet Arcature, contact marie.dupont@arcature-archi.fr, 06 12 34 56 78.'], at: iso(T0) });
    await upsertSearchDocuments(svc.db, DCE_SEARCH, [{ key: `${id}/0/1`, fields: { texte: 'Maîtrise d’œuvre : cabinet Arcature, contact marie.dupont@arcature-archi.fr, 06 12 34 56 78.', piece: 'CCTP lot 1 pdf' } }]);
    expect((await read({ query: 'dupont' })).json.results).to.have.length(1);
    await maskStoredPages(svc.db);
    const stored = (await svc.db('dce_pages').where('dce_id', id).first('text')) as { text: string };
    expect(stored.text).to.equal(`Maîtrise d’œuvre : cabinet Arcature, contact ${MASK}, ${MASK}.`);
    expect((await read({ query: 'dupont' })).json.results).to.deep.equal([]);
    expect((await read({ query: 'arcature' })).json.results).to.have.length(1);
  });
});
