// Consultation files over real HTTP: the table of contents, a piece read by pages (approximate names resolved, ambiguity and overflow said), terms located, files searched with filters and cursors, a download link that serves the piece or the archive and refuses an expired, forged or another account's link; file units exact on the free plan (the sixth distinct file refused, a re-read free, contents, location and search free); REST and MCP alike.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { importFile } from '../../../src/import/run.js';
import { IMPORTERS } from '../../../src/domains/importers.js';
import { importDce, parseTarget } from '../../../src/domains/dce/ingest.js';
import { signLink } from '../../../src/domains/dce/links.js';
import { secret } from '../../../src/platform/db/secrets.js';
import { Extractor } from '../../../src/platform/extract/extractor.js';
import { docxDocument, pdfDocument, xlsxDocument, zipOf } from '../../../scripts/demo/documents.js';
import { CookieJar, follow, formFields } from '../../../scripts/lib/native-flow.js';
import { forgetSourceVolumes } from '../../../src/domains/source-volumes.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { mcpClient } from '../../helpers/mcp.js';
import { zipEntryNames } from '../../helpers/zip.js';
import { startTestService, type TestService } from '../../helpers/service.js';

const BOAMP = fileURLToPath(new URL('../../../../shared/real-samples/boamp/boamp-explore-v2.1-records-limit5-jpbenga.json', import.meta.url));
const LONG = Array.from({ length: 40 }, (_, i) => `Article ${i + 1}. La couverture en ardoise naturelle est posée au crochet inox sur liteaux, ${'avec les raccords de zinguerie et les abergements prévus au présent cahier. '.repeat(3)}`);


describe('consultation files over HTTP', function () {
  this.timeout(60000);
  let svc: TestService;
  let dir: string;
  let notice: string;
  const read = (args: Record<string, unknown>, token?: string) => svc.rest('dce.read', args, token ? { token } : undefined);

  before(async () => {
    svc = await startTestService();
    dir = mkdtempSync(join(tmpdir(), 'dce-http-'));
    await importFile(svc.db, IMPORTERS.boamp as never, BOAMP, { progress: () => ({ update: () => undefined, stop: () => undefined }) });
    notice = ((await svc.db('notices').where('annonce_id', '15-31501').first('marche_id')) as { marche_id: string }).marche_id;
    const archive = join(dir, 'dce.zip');
    writeFileSync(
      archive,
      await zipOf([
        { name: 'RC.pdf', data: await pdfDocument([{ lines: ['Règlement de la consultation', 'Qualification Qualibat 3194 exigée.'] }, { scan: true }]) },
        { name: 'Lot 1 Couverture/CCTP lot 1.docx', data: await docxDocument(['CCTP lot 1 Couverture', ...LONG]) },
        { name: 'Lot 2 Charpente/CCTP lot 2.docx', data: await docxDocument(['CCTP lot 2 Charpente', 'Bois massif C24, traitement fongicide.']) },
        { name: 'Lot 1 Couverture/DPGF lot 1.xlsx', data: await xlsxDocument([{ name: 'DPGF', rows: [['1.1', 'Ardoise naturelle', 'm²', 420]] }]) },
        { name: 'Plans/plan-masse.dwg', data: Buffer.from('AC1027') },
      ]),
    );
    const extractor = new Extractor();
    try {
      await importDce({ db: svc.db, store: svc.dceStore, extractor, now: () => new Date() }, parseTarget('15-31501'), [archive]);
      // Five more files, each its own, for the free plan's five units.
      for (let i = 1; i <= 5; i++) {
        const other = join(dir, `autre-${i}.zip`);
        writeFileSync(other, await zipOf([{ name: 'RC.pdf', data: await pdfDocument([{ lines: [`Règlement ${i} : toiture du gymnase ${i}`] }]) }]));
        await importDce({ db: svc.db, store: svc.dceStore, extractor, now: () => new Date() }, parseTarget(`AUTRE-${i}`), [other]);
      }
    } finally {
      await extractor.close();
    }
  });
  after(async () => {
    await svc.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('gives the table of contents, by marche_id or annonce_id, free of units', async () => {
    for (const id of [notice, '15-31501']) {
      const { status, json } = await read({ marche_id: id, type: 'sommaire' });
      expect(status, JSON.stringify(json)).to.equal(200);
      expect(json).to.include({ ok: true, action: 'sommaire_dce', marche_id: notice, count: 5 });
      expect(json.fichiers.map((f: { filename: string; doc_type: string; lot: number | null; pages_total: number }) => [f.filename, f.doc_type, f.lot, f.pages_total])).to.deep.equal([
        ['Lot 1 Couverture/CCTP lot 1.docx', 'cctp', 1, 2],
        ['Lot 1 Couverture/DPGF lot 1.xlsx', 'dpgf', 1, 1],
        ['Lot 2 Charpente/CCTP lot 2.docx', 'cctp', 2, 1],
        ['Plans/plan-masse.dwg', 'plan', null, 0],
        ['RC.pdf', 'rc', null, 1],
      ]);
    }
    // Two CCTP (one per lot) and no filename: the contents of the CCTP, not both texts.
    const cctp = await read({ marche_id: notice, type: 'cctp' });
    expect(cctp.json).to.include({ action: 'sommaire_dce', count: 2 });
    expect(cctp.json.hint).to.match(/choisir avec « filename »/);
  });

  it('counts a piece\'s pages once: the contents\' pages_total is the reading\'s, on REST and MCP; the file\'s own pages are pages_document', async () => {
    const client = await mcpClient(`${svc.url}/api/mcp/connectors`, svc.token);
    try {
      const viaRest = (await read({ marche_id: notice, type: 'sommaire' })).json;
      const viaMcp = ((await client.callTool({ name: 'marches_dce', arguments: { marche_id: notice, type: 'sommaire' } })) as CallToolResult).structuredContent as typeof viaRest;
      expect(viaMcp.fichiers).to.deep.equal(viaRest.fichiers);
      type Piece = { filename: string; doc_type: string; pages_total: number; pages_document: number };
      const pieces = viaRest.fichiers as Piece[];
      for (const key of ['pages_estimees', 'parties']) expect(pieces[0], key).to.not.have.property(key);
      // The RC is a two-page PDF (one scanned) that reads in one page: the two counts differ, and are named apart.
      expect(pieces.find((p) => p.filename === 'RC.pdf')).to.include({ pages_total: 1, pages_document: 2 });
      for (const piece of pieces.filter((p) => p.pages_total > 0)) {
        const last = { marche_id: notice, type: piece.doc_type, filename: piece.filename, page: piece.pages_total };
        const restReading = (await read(last)).json;
        const mcpReading = ((await client.callTool({ name: 'marches_dce', arguments: last })) as CallToolResult).structuredContent as typeof restReading;
        for (const reading of [restReading, mcpReading]) {
          expect(reading, piece.filename).to.include({ action: 'lecture_dce', page: piece.pages_total, pages_total: piece.pages_total });
          expect(reading.hint, piece.filename).to.equal(undefined);
          expect((reading.fichiers as Piece[]).find((p) => p.filename === piece.filename)?.pages_total).to.equal(reading.pages_total);
        }
        // One page past the count is refused: the count is the reading's.
        expect((await read({ ...last, page: piece.pages_total + 1 })).status, piece.filename).to.equal(400);
      }
    } finally {
      await client.close();
    }
  });

  it('reads a piece by pages, from an approximate name, and says ambiguity, absence and overflow', async () => {
    const first = await read({ marche_id: notice, type: 'cctp', filename: 'cctp LOT 1' });
    expect(first.json).to.include({ action: 'lecture_dce', filename: 'Lot 1 Couverture/CCTP lot 1.docx', doc_type: 'cctp', page: 1, pages_total: 2 });
    expect(first.json.texte.length).to.be.within(4000, 8000);
    expect(first.json.hint).to.equal('Page suivante : « page » 2.');
    const second = await read({ marche_id: notice, type: 'cctp', filename: 'cctp LOT 1', page: 2 });
    expect(second.json.texte).to.match(/Article 40\./);
    // Every word once across the pages: nothing lost, nothing repeated at the cut.
    expect(`${first.json.texte} ${second.json.texte}`.split(/\s+/).length).to.equal(['CCTP lot 1 Couverture', ...LONG].join(' ').split(/\s+/).filter(Boolean).length);
    const rc = await read({ marche_id: '15-31501', type: 'rc' });
    expect(rc.json.texte).to.equal('Règlement de la consultation\nQualification Qualibat 3194 exigée.\n\n[Page 2 : page numérisée, texte non disponible]');
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ filename: 'cctp' }, /désigne plusieurs pièces : « Lot 1 Couverture\/CCTP lot 1\.docx », « Lot 2 Charpente\/CCTP lot 2\.docx »/],
      [{ filename: 'bordereau' }, /ne désigne aucune pièce du dossier/],
      [{ filename: 'plan-masse' }, /n'a pas de texte/],
      [{ filename: 'RC', page: 3 }, /« page » \(3\) dépasse les 1 page de lecture/],
    ];
    for (const [args, message] of cases) {
      const { status, json } = await read({ marche_id: notice, type: 'cctp', ...args });
      expect(status, JSON.stringify(args)).to.equal(400);
      expect(json.error.code).to.equal('invalid_arguments');
      expect(json.error.message).to.match(message);
    }
    expect((await read({ marche_id: 'inconnu-42', type: 'rc' })).status).to.equal(404);
    expect((await read({ marche_id: notice })).json.error.message).to.match(/donner « query », ou « marche_id » et « type »/);
  });

  it('locates terms in a file and searches every file, with cursors', async () => {
    const located = await read({ marche_id: notice, query: 'ardoise naturelle' });
    expect(located.json).to.include({ action: 'localisation_dce', count: 3 });
    expect(located.json.results.map((r: { filename: string; page: number }) => `${r.filename}#${r.page}`)).to.deep.equal([
      'Lot 1 Couverture/CCTP lot 1.docx#1',
      'Lot 1 Couverture/CCTP lot 1.docx#2',
      'Lot 1 Couverture/DPGF lot 1.xlsx#1',
    ]);
    expect(located.json.results[2].extrait).to.match(/Ardoise naturelle/);
    const found = await read({ query: 'toiture gymnase', limit: 2 });
    expect(found.json).to.include({ action: 'recherche_dce', count: 2, total_estimated: 5 });
    const next = await read({ query: 'toiture gymnase', limit: 2, cursor: found.json.next_cursor });
    expect(next.json.results).to.have.length(2);
    expect(next.json.results.map((r: { marche_id: string }) => r.marche_id)).to.not.include.members(found.json.results.map((r: { marche_id: string }) => r.marche_id));
    const qualibat = await read({ query: 'qualibat' });
    expect(qualibat.json.results.map((r: { marche_id: string; filename: string; acheteur: string | null }) => [r.marche_id, r.filename])).to.deep.equal([[notice, 'RC.pdf']]);
    // Filters on the notice: a department keeps only files matched to a located notice.
    const noticeDeps = JSON.parse(((await svc.db('notices').where('marche_id', notice).first('departements')) as { departements: string }).departements) as string[];
    expect((await read({ query: 'qualibat', departements: noticeDeps })).json.results).to.have.length(1);
    expect((await read({ query: 'toiture gymnase', departements: noticeDeps })).json.results).to.have.length(0);
  });

  it('gives a link serving the piece or the whole archive; refuses it expired, forged or for another account', async () => {
    const one = await svc.rest('dce.download', { marche_id: notice, filename: 'RC.pdf' });
    expect(one.json).to.include({ ok: true, action: 'telechargement_dce', marche_id: notice, filename: 'RC.pdf', content_type: 'application/pdf', expires_in: 600 });
    const piece = await fetch(one.json.download_url);
    expect(piece.status).to.equal(200);
    expect(piece.headers.get('x-robots-tag')).to.equal('noindex, nofollow');
    expect(piece.headers.get('cache-control')).to.equal('no-store');
    expect(piece.headers.get('referrer-policy')).to.equal('no-referrer');
    expect(piece.headers.get('content-disposition')).to.include('filename="RC.pdf"');
    expect(Buffer.from(await piece.arrayBuffer()).subarray(0, 5).toString()).to.equal('%PDF-');

    const all = await svc.rest('dce.download', { marche_id: notice });
    expect(all.json).to.include({ content_type: 'application/zip', count: 5 });
    const archive = await fetch(all.json.download_url);
    expect(archive.status).to.equal(200);
    expect((await zipEntryNames(Buffer.from(await archive.arrayBuffer()))).sort()).to.deep.equal(
      ['Lot 1 Couverture/CCTP lot 1.docx', 'Lot 1 Couverture/DPGF lot 1.xlsx', 'Lot 2 Charpente/CCTP lot 2.docx', 'Plans/plan-masse.dwg', 'RC.pdf'].sort(),
    );

    const key = await secret(svc.db, 'dce-links', () => 'inutilisé');
    const dceId = ((await svc.db('dce_files').where('annonce_id', '15-31501').first('id')) as { id: string }).id;
    const expired = signLink(key, { account: svc.account.userId, dce: dceId, piece: null, expires: Math.floor(Date.now() / 1000) - 1 });
    const base = one.json.download_url.slice(0, one.json.download_url.lastIndexOf('/') + 1);
    const gone = await fetch(`${base}${expired}`);
    expect(gone.status).to.equal(410);
    expect(await gone.text()).to.include('Lien expiré');
    const token = one.json.download_url.slice(base.length);
    const forged = await fetch(`${base}${token.slice(0, -2)}${token.endsWith('AA') ? 'BB' : 'AA'}`);
    expect(forged.status).to.equal(403);
    expect(await forged.text()).to.not.include('%PDF');
  });

  it('refuses a link opened by another signed-in account, and serves it to its own', async () => {
    const signIn = async (email: string, password: string) => {
      const jar = new CookieJar();
      const login = await follow(`${svc.url}/compte/connexion`, jar);
      const { action, fields } = formFields(await login.res.text());
      await follow(new URL(action, login.url).toString(), jar, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ ...fields, email, password }).toString(),
      });
      return jar;
    };
    const link = (await svc.rest('dce.download', { marche_id: notice, filename: 'RC.pdf' })).json.download_url as string;
    const other = await svc.createAccount({ organisation: 'Autre entreprise' });
    const refused = await follow(link, await signIn(other.email, other.password));
    expect(refused.res.status).to.equal(403);
    expect(await refused.res.text()).to.include('Lien d’un autre compte');
    const own = await follow(link, await signIn(svc.account.email, svc.account.password));
    expect(own.res.status).to.equal(200);
    expect(own.res.headers.get('content-type')).to.equal('application/pdf');
  });

  it('finds a file attached by annonce_id before its notice, once the notice arrives: by marche_id and by department', async () => {
    const archive = join(dir, 'tardif.zip');
    writeFileSync(archive, await zipOf([{ name: 'RC.pdf', data: await pdfDocument([{ lines: ['Règlement : désamiantage du préau'] }]) }]));
    const extractor = new Extractor();
    try {
      await importDce({ db: svc.db, store: svc.dceStore, extractor, now: () => new Date() }, parseTarget('26-99999'), [archive]);
    } finally {
      await extractor.close();
    }
    expect((await read({ marche_id: '26-99999', type: 'rc' })).json.marche_id).to.match(/^[0-9a-f-]{36}$/);
    // The notice arrives: one of the real sample's records under this annonce_id.
    const sample = (JSON.parse(readFileSync(BOAMP, 'utf8')) as { results: Record<string, unknown>[] }).results[0] as Record<string, unknown>;
    const late = join(dir, 'avis-tardif.json');
    writeFileSync(late, JSON.stringify({ results: [{ ...sample, idweb: '26-99999', id: '26-99999' }] }));
    await importFile(svc.db, IMPORTERS.boamp as never, late, { progress: () => ({ update: () => undefined, stop: () => undefined }) });
    const arrived = ((await svc.db('notices').where('annonce_id', '26-99999').first('marche_id', 'departements')) as { marche_id: string; departements: string });
    const byNotice = await read({ marche_id: arrived.marche_id, type: 'rc' });
    expect(byNotice.json).to.include({ action: 'lecture_dce', marche_id: arrived.marche_id });
    expect(byNotice.json.texte).to.include('désamiantage du préau');
    const found = await read({ query: 'desamiantage preau', departements: JSON.parse(arrived.departements) as string[] });
    expect(found.json.results.map((r: { marche_id: string }) => r.marche_id)).to.deep.equal([arrived.marche_id]);
  });

  it('counts file units exactly on the free plan: the sixth distinct file refused, a re-read free, contents and search free', async () => {
    const free = await svc.createAccount({ organisation: 'Petite entreprise', plan: 'free' });
    // The free plan's 5 calls a minute would refuse this test's calls first: its organisation
    // is given more calls (a negotiated contract), the files stay the plan's 5 a day.
    await svc.db('organisations').where('id', free.organisationId).update({ calls_per_minute: 1000, calls_per_day: 1000 });
    const token = await svc.tokenFor(free, 'mcp:read');
    const ids = [notice, 'AUTRE-1', 'AUTRE-2', 'AUTRE-3', 'AUTRE-4'];
    for (const id of ids) expect((await read({ marche_id: id, type: 'rc' }, token)).status, id).to.equal(200);
    // Re-reading and downloading a file opened today: free.
    expect((await read({ marche_id: notice, type: 'rc' }, token)).status).to.equal(200);
    expect((await svc.rest('dce.download', { marche_id: 'AUTRE-2' }, { token })).status).to.equal(200);
    // Contents, location and search: free.
    expect((await read({ marche_id: 'AUTRE-5', type: 'sommaire' }, token)).status).to.equal(200);
    expect((await read({ marche_id: 'AUTRE-5', query: 'toiture' }, token)).status).to.equal(200);
    expect((await read({ query: 'toiture' }, token)).status).to.equal(200);
    const sixth = await read({ marche_id: 'AUTRE-5', type: 'rc' }, token);
    expect(sixth.status).to.equal(429);
    expect(sixth.json.error.code).to.equal('quota_exceeded');
    expect(sixth.json.error.message).to.match(/^Quota de consultation atteint : 5 dossiers distincts/);
    expect((await svc.rest('dce.download', { marche_id: 'AUTRE-5' }, { token })).status).to.equal(429);
    // The same ceiling on the connectors address: a tool error carrying the service's code and the wait.
    const client = await mcpClient(`${svc.url}/api/mcp/connectors`, token);
    try {
      for (const [name, args] of [['marches_dce', { marche_id: 'AUTRE-5', type: 'rc' }], ['marches_dce_lien_obtenir', { marche_id: 'AUTRE-5' }]] as const) {
        const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
        expect(result.isError, name).to.equal(true);
        expect((result.content[0] as { text: string }).text).to.equal(sixth.json.error.message);
        const error = (result._meta as Record<string, { code: string; retry_after_seconds: number }>)['service/error'];
        expect(error?.code, name).to.equal('quota_exceeded');
        expect(error?.retry_after_seconds, name).to.be.within(1, 25 * 3600);
      }
    } finally {
      await client.close();
    }
  });

  it('referentiel_sources counts the consultation files held, and the newest entry', async () => {
    forgetSourceVolumes(svc.db);
    const { status, json } = await svc.rest('referentiels.sources', {});
    expect(status).to.equal(200);
    const dce = json.items.find((s: { code: string }) => s.code === 'dce');
    expect(dce.donnees.enregistrements).to.equal(Number((await svc.db('dce_files').count({ n: '*' }).first())?.n));
    expect(dce.donnees.derniere_entree).to.match(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?[+-]\d{2}:\d{2}$/);
    const alert = await svc.rest('alertes.create', { name: 'Dossiers', query: 'toiture', sources: ['dce'] });
    expect(alert.json.warnings.filter((w: string) => /aucune donnée/.test(w))).to.deep.equal([]);
  });
});
