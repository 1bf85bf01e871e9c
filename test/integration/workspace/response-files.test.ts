// Issue 16 (workspace, response files): dossiers.* build the checklist from the consultation file's RC (each item with the RC page citing it) or a default list, one file per notice (409), edit items and statuses all or nothing under a version (409 when stale), attach and detach the organisation's documents (base64, 2 MiB, DCE piece types), and export one zip (checklist page + documents) through a signed link with French refusals; same on REST and MCP.
import { expect } from 'chai';
import yauzl from 'yauzl';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { mcpClient } from '../../helpers/mcp.js';
import { startTestService, type TestService } from '../../helpers/service.js';
import { call, seedPublicRecords, seedRc, type PublicRecords, type Via } from './fixtures.js';

function zipContents(bytes: Buffer): Promise<Map<string, Buffer>> {
  return new Promise((resolve, reject) =>
    yauzl.fromBuffer(bytes, { lazyEntries: true }, (err, zip) => {
      if (err || !zip) return reject(err);
      const out = new Map<string, Buffer>();
      zip.on('entry', (e: yauzl.Entry) => {
        zip.openReadStream(e, (error, stream) => {
          if (error || !stream) return reject(error);
          const chunks: Buffer[] = [];
          stream.on('data', (c: Buffer) => chunks.push(c));
          stream.on('end', () => {
            out.set(e.fileName, Buffer.concat(chunks));
            zip.readEntry();
          });
        });
      });
      zip.on('end', () => resolve(out));
      zip.readEntry();
    }),
  );
}

const RC_CODES = ['dc1', 'dume', 'dc2', 'memoire_technique', 'attestation_assurance', 'qualification', 'planning', 'dpgf', 'dpgf'];
const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');

describe('workspace: response files (dossiers.*)', function () {
  this.timeout(30000);
  let svc: TestService;
  let withRc: PublicRecords;
  let withoutRc: PublicRecords;
  let me: { token: string; mcp: Client };

  before(async () => {
    svc = await startTestService();
    withRc = await seedPublicRecords(svc.db, '1');
    await seedRc(svc.db, withRc);
    withoutRc = await seedPublicRecords(svc.db, '2');
    me = { token: svc.token, mcp: await mcpClient(`${svc.url}/api/mcp`, svc.token) };
  });
  after(async () => {
    await me.mcp.close();
    await svc.close();
  });
  beforeEach(async () => {
    await svc.db('response_file_documents').delete();
    await svc.db('response_files').delete();
  });

  for (const via of ['rest', 'mcp'] as Via[]) {
    describe(`over ${via}`, () => {
      it('reads the checklist in the RC, each item with the RC page and passage citing it, the DPGF of each lot from the DCE; one file per notice (409)', async () => {
        const r = await call(svc, via, 'dossiers.create', { marche_id: withRc.annonceId }, me);
        expect(r.ok, r.message).to.equal(true);
        const f = r.body.dossier;
        expect(f).to.include({ marche_id: withRc.marcheId, titre: 'Réfection de la toiture du gymnase 1', version: 1, cree_par: svc.account.userId });
        expect(f.source).to.deep.equal({ type: 'rc', dce_id: withRc.dceId, rc: '01 RC.pdf' });
        expect(f.avis).to.deep.equal({ present: true, objet: 'Réfection de la toiture du gymnase 1', date_limite: withRc.deadline });
        expect(f.pieces.map((p: any) => p.code)).to.deep.equal(RC_CODES);
        expect(f.pieces.map((p: any) => p.id)).to.deep.equal(RC_CODES.map((_, i) => `p${i + 1}`));
        const insurance = f.pieces.find((p: any) => p.code === 'attestation_assurance');
        expect(insurance).to.deep.include({ libelle: "Attestation d'assurance décennale", statut: 'a_fournir', statut_libelle: 'à fournir', documents: [] });
        expect(insurance.origine).to.include({ type: 'rc', piece: '01 RC.pdf', page: 2 });
        expect(insurance.origine.extrait).to.contain('Chaque candidat produit');
        expect(f.pieces[7].origine).to.deep.equal({ type: 'dce', piece: 'Lot 01 Couverture/DPGF lot 1.xlsx', page: null, extrait: null });
        expect(f.compteurs).to.deep.equal({ a_fournir: 9, en_cours: 0, pret: 0, sans_objet: 0, documents: 0 });
        const again = await call(svc, via, 'dossiers.create', { marche_id: withRc.marcheId }, me);
        expect(again.ok).to.equal(false);
        if (via === 'rest') expect([again.status, again.code]).to.deep.equal([409, 'conflict']);
        expect(again.message).to.contain(f.id);
        const got = await call(svc, via, 'dossiers.get', { id: f.id }, me);
        expect(got.body).to.deep.equal({ action: 'lecture', dossier: f });
      });

      it('gives the default list without an RC, and 404 for an unknown notice or file', async () => {
        const r = await call(svc, via, 'dossiers.create', { marche_id: withoutRc.marcheId, titre: 'Gymnase 2' }, me);
        expect(r.body.dossier.source).to.deep.equal({ type: 'defaut', dce_id: withoutRc.dceId, rc: null });
        expect(r.body.dossier.titre).to.equal('Gymnase 2');
        expect(r.body.dossier.pieces.map((p: any) => p.code)).to.include.members(['dc1', 'dc2', 'memoire_technique', 'kbis', 'rib']);
        expect(r.body.dossier.pieces.every((p: any) => p.origine.type === 'defaut')).to.equal(true);
        const unknown = await call(svc, via, 'dossiers.create', { marche_id: '26-00000' }, me);
        if (via === 'rest') expect([unknown.status, unknown.code]).to.deep.equal([404, 'not_found']);
        expect(unknown.message).to.contain('Avis de marché introuvable');
        const missing = await call(svc, via, 'dossiers.get', { id: '3f2b8c1e-9a4d-4e6f-8b2a-1c3d5e7f9a0b' }, me);
        expect(missing.message).to.contain('Dossier de réponse introuvable');
      });

      it('adds, renames, moves and removes items in one update, attaches and detaches documents; a stale version is 409 and a refused update changes nothing', async () => {
        const f = (await call(svc, via, 'dossiers.create', { marche_id: withRc.marcheId }, me)).body.dossier;
        const r = await call(
          svc,
          via,
          'dossiers.update',
          {
            id: f.id,
            version: 1,
            titre: 'Gymnase — réponse',
            ajouter: [{ libelle: 'Références de chantiers similaires', statut: 'en_cours' }],
            modifier: [
              { piece: 'p1', statut: 'pret' },
              { piece: 'p7', libelle: 'Planning détaillé' },
            ],
            retirer: ['p2'],
            joindre: [{ piece: 'p1', nom: 'DC1 signé.txt', contenu_base64: b64('Lettre de candidature signée.') }],
          },
          me,
        );
        expect(r.ok, r.message).to.equal(true);
        const d = r.body.dossier;
        expect(d.version).to.equal(2);
        expect(d.titre).to.equal('Gymnase — réponse');
        expect(d.pieces.map((p: any) => p.id)).to.deep.equal(['p1', 'p3', 'p4', 'p5', 'p6', 'p7', 'p8', 'p9', 'p10']);
        expect(d.pieces[0]).to.deep.include({ statut: 'pret', statut_libelle: 'prête' });
        expect(d.pieces[0].documents).to.have.length(1);
        expect(d.pieces[0].documents[0]).to.include({ nom: 'DC1 signé.txt', taille: 30, content_type: 'text/plain; charset=utf-8', ajoute_par: svc.account.userId });
        expect(d.pieces[5].libelle).to.equal('Planning détaillé');
        expect(d.pieces[8]).to.deep.include({ libelle: 'Références de chantiers similaires', code: null, statut: 'en_cours', origine: { type: 'ajout', piece: null, page: null, extrait: null } });
        expect(d.compteurs).to.deep.equal({ a_fournir: 7, en_cours: 1, pret: 1, sans_objet: 0, documents: 1 });
        const stale = await call(svc, via, 'dossiers.update', { id: f.id, version: 1, titre: 'perdu' }, me);
        if (via === 'rest') expect([stale.status, stale.code]).to.deep.equal([409, 'conflict']);
        expect(stale.message).to.contain('version actuelle 2');
        // A refused update (an unknown item after a valid change) leaves the file as it was.
        const refused = await call(svc, via, 'dossiers.update', { id: f.id, version: 2, modifier: [{ piece: 'p3', statut: 'pret' }], retirer: ['p2'] }, me);
        if (via === 'rest') expect([refused.status, refused.code]).to.deep.equal([400, 'invalid_arguments']);
        expect(refused.message).to.contain('« p2 »');
        const blank = await call(svc, via, 'dossiers.update', { id: f.id, version: 2, modifier: [{ piece: 'p3', libelle: '   ' }] }, me);
        expect(blank.message).to.contain('modifier[0].libelle').and.contain('vide');
        const emptyUpdate = await call(svc, via, 'dossiers.update', { id: f.id, version: 2 }, me);
        expect(emptyUpdate.message).to.contain('Rien à modifier');
        // Removing an item detaches its documents; an id removed is never given again.
        const removed = await call(svc, via, 'dossiers.update', { id: f.id, version: 2, retirer: ['p1'], ajouter: [{ libelle: 'Pouvoir du signataire' }] }, me);
        expect(removed.body.dossier.compteurs.documents).to.equal(0);
        expect(removed.body.dossier.pieces.at(-1).id).to.equal('p11');
        const same = await call(svc, via, 'dossiers.get', { id: f.id }, me);
        expect(same.body.dossier).to.deep.equal(removed.body.dossier);
      });

      it('refuses a document of a type DCE pieces cannot have, not base64, or over 2 MiB, naming what is wrong', async () => {
        const f = (await call(svc, via, 'dossiers.create', { marche_id: withRc.marcheId }, me)).body.dossier;
        const exe = await call(svc, via, 'dossiers.update', { id: f.id, version: 1, joindre: [{ piece: 'p1', nom: 'outil.exe', contenu_base64: b64('MZ') }] }, me);
        if (via === 'rest') expect(exe.status).to.equal(400);
        expect(exe.message).to.contain('extension admise');
        const garbage = await call(svc, via, 'dossiers.update', { id: f.id, version: 1, joindre: [{ piece: 'p1', nom: 'a.pdf', contenu_base64: '%%%%' }] }, me);
        expect(garbage.message).to.contain("n'est pas du base64");
        const big = Buffer.alloc(2 * 1024 * 1024 + 1, 1).toString('base64');
        const tooBig = await call(svc, via, 'dossiers.update', { id: f.id, version: 1, joindre: [{ piece: 'p1', nom: 'gros.pdf', contenu_base64: big }] }, me);
        if (via === 'rest') expect([tooBig.status, tooBig.code]).to.deep.equal([400, 'invalid_arguments']);
        expect(tooBig.message).to.contain('2097153 octets').and.contain('2 Mio');
        const exact = await call(svc, via, 'dossiers.update', { id: f.id, version: 1, joindre: [{ piece: 'p2', nom: 'juste.pdf', contenu_base64: Buffer.alloc(2 * 1024 * 1024, 2).toString('base64') }] }, me);
        expect(exact.ok, exact.message).to.equal(true);
        expect(exact.body.dossier.compteurs.documents).to.equal(1);
      });

      it('exports one zip through a signed link: the checklist page and the documents by item, with private headers', async () => {
        const f = (await call(svc, via, 'dossiers.create', { marche_id: withRc.marcheId }, me)).body.dossier;
        await call(
          svc,
          via,
          'dossiers.update',
          {
            id: f.id,
            version: 1,
            joindre: [
              { piece: 'p1', nom: 'DC1.txt', contenu_base64: b64('DC1 rempli') },
              { piece: 'p1', nom: 'DC1.txt', contenu_base64: b64('DC1 corrigé') },
              { piece: 'p5', nom: '../assurance<2026>.pdf', contenu_base64: b64('%PDF-1.4 assurance') },
            ],
            modifier: [{ piece: 'p5', statut: 'pret', libelle: 'Assurance <décennale> & RC' }],
          },
          me,
        );
        const link = await call(svc, via, 'dossiers.export', { id: f.id }, me);
        expect(link.ok, link.message).to.equal(true);
        expect(link.body).to.include({ action: 'export', id: f.id, filename: 'Réfection de la toiture du gymnase 1.zip', content_type: 'application/zip', expires_in: 600, documents: 3 });
        expect(link.body.download_url).to.match(new RegExp(`^${svc.url}/dossiers/export/[A-Za-z0-9_.-]+$`));
        const answer = await fetch(link.body.download_url);
        expect(answer.status).to.equal(200);
        expect(answer.headers.get('content-type')).to.equal('application/zip');
        expect(answer.headers.get('cache-control')).to.equal('no-store');
        expect(answer.headers.get('x-robots-tag')).to.equal('noindex, nofollow');
        expect(answer.headers.get('content-disposition')).to.contain("filename*=UTF-8''R%C3%A9fection");
        const entries = await zipContents(Buffer.from(await answer.arrayBuffer()));
        expect([...entries.keys()]).to.deep.equal([
          'liste-des-pieces.html',
          '01 Lettre de candidature (formulaire DC1)/DC1.txt',
          '01 Lettre de candidature (formulaire DC1)/DC1 (2).txt',
          '05 Assurance décennale & RC/assurance 2026 .pdf',
        ]);
        expect(entries.get('01 Lettre de candidature (formulaire DC1)/DC1 (2).txt')?.toString()).to.equal('DC1 corrigé');
        const html = entries.get('liste-des-pieces.html')?.toString() as string;
        expect(html).to.contain('<h1>Réfection de la toiture du gymnase 1</h1>');
        expect(html).to.contain('prête').and.contain('RC « 01 RC.pdf », page 2').and.contain('Pièce du DCE « Lot 01 Couverture/DPGF lot 1.xlsx »');
        expect(html).to.contain('Assurance &#60;décennale&#62; &#38; RC');
      });
    });
  }

  it('refuses a tampered link, a consultation file link, a member who left and a file removed since, with French pages', async () => {
    const f = (await svc.rest('dossiers.create', { marche_id: withRc.marcheId })).json.dossier;
    const url = (await svc.rest('dossiers.export', { id: f.id })).json.download_url as string;
    const tampered = await fetch(`${url.slice(0, -2)}xx`);
    expect(tampered.status).to.equal(403);
    expect(tampered.headers.get('cache-control')).to.equal('no-store');
    expect(await tampered.text()).to.contain('Lien invalide');
    // A consultation file's link key signs export links under another label: a DCE token is no export token.
    const dceLink = (await svc.rest('dce.download', { marche_id: withRc.marcheId })).json.download_url as string;
    const crossed = await fetch(`${svc.url}/dossiers/export/${dceLink.split('/').pop() as string}`);
    expect(crossed.status).to.equal(403);
    // A member who left the organisation since: the link no longer opens the file.
    const colleague = await svc.createAccount({ role: 'membre' });
    const theirs = (await svc.rest('dossiers.export', { id: f.id }, { token: await svc.tokenFor(colleague) })).json.download_url as string;
    expect((await fetch(theirs)).status).to.equal(200);
    await svc.db('memberships').where('user_id', colleague.userId).delete();
    const left = await fetch(theirs);
    expect(left.status).to.equal(410);
    await svc.db('response_files').where('id', f.id).delete();
    const gone = await fetch(url);
    expect(gone.status).to.equal(410);
    expect(await gone.text()).to.contain('n’est plus disponible');
  });

  it('lists the organisation files by notice and by pages, the same on REST and MCP', async () => {
    const a = (await svc.rest('dossiers.create', { marche_id: withRc.marcheId })).json.dossier;
    const b = (await svc.rest('dossiers.create', { marche_id: withoutRc.marcheId })).json.dossier;
    const first = await svc.rest('dossiers.list', { limit: 1 });
    expect(first.json.total).to.equal(2);
    const second = await svc.rest('dossiers.list', { limit: 1, cursor: first.json.next_cursor });
    expect([first.json.items[0].id, second.json.items[0].id].sort()).to.deep.equal([a.id, b.id].sort());
    expect(second.json.next_cursor).to.equal(null);
    expect((await svc.rest('dossiers.list', { marche_id: withoutRc.annonceId })).json.items.map((x: any) => x.id)).to.deep.equal([b.id]);
    const viaMcp = await call(svc, 'mcp', 'dossiers.list', { marche_id: withRc.marcheId }, me);
    expect(viaMcp.body).to.deep.equal((await svc.rest('dossiers.list', { marche_id: withRc.marcheId })).json);
  });
});
