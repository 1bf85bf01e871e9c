// Issue 16 (workspace, drafts): brouillons.* create attached to a notice or a response file, at most 64 KiB of UTF-8 (400 naming the size), every update keeps the previous version (listed with the draft's id), stale version 409, delete answers what was removed with its versions, lists filter and page; same on REST and MCP.
import { expect } from 'chai';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { mcpClient } from '../../helpers/mcp.js';
import { startTestService, type TestService } from '../../helpers/service.js';
import { call, seedPublicRecords, type PublicRecords, type Via } from './fixtures.js';

describe('workspace: drafts (brouillons.*)', function () {
  this.timeout(30000);
  let svc: TestService;
  let records: PublicRecords;
  let me: { token: string; mcp: Client };

  before(async () => {
    svc = await startTestService();
    records = await seedPublicRecords(svc.db);
    me = { token: svc.token, mcp: await mcpClient(`${svc.url}/api/mcp`, svc.token) };
  });
  after(async () => {
    await me.mcp.close();
    await svc.close();
  });
  beforeEach(async () => {
    await svc.db('draft_versions').delete();
    await svc.db('drafts').delete();
    await svc.db('response_file_documents').delete();
    await svc.db('response_files').delete();
  });

  for (const via of ['rest', 'mcp'] as Via[]) {
    describe(`over ${via}`, () => {
      it('writes a draft for a notice given by its annonce_id, with who and when, version 1', async () => {
        const r = await call(svc, via, 'brouillons.create', { nature: 'memoire_technique', titre: ' Méthodologie ', contenu: 'Phase 1 : installation.', marche_id: records.annonceId }, me);
        expect(r.ok, r.message).to.equal(true);
        const d = r.body.brouillon;
        expect(d).to.include({ nature: 'memoire_technique', titre: 'Méthodologie', contenu: 'Phase 1 : installation.', marche_id: records.marcheId, dossier_id: null, version: 1 });
        expect(d.taille).to.equal(Buffer.byteLength('Phase 1 : installation.'));
        expect(d.avis_objet).to.equal('Réfection de la toiture du gymnase 1');
        expect([d.cree_par, d.modifie_par]).to.deep.equal([svc.account.userId, svc.account.userId]);
        expect(d.cree_le).to.match(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?[+-]\d{2}:\d{2}$/);
      });

      it('refuses a draft attached to nothing (400), to an unknown notice or response file (404)', async () => {
        const nothing = await call(svc, via, 'brouillons.create', { nature: 'lettre', titre: 'Lettre', contenu: 'x' }, me);
        expect(nothing.ok).to.equal(false);
        expect(nothing.message).to.contain('marche_id').and.contain('dossier_id');
        if (via === 'rest') expect(nothing.status).to.equal(400);
        const notice = await call(svc, via, 'brouillons.create', { nature: 'lettre', titre: 'Lettre', contenu: 'x', marche_id: '26-00000' }, me);
        expect(notice.message).to.contain('Avis de marché introuvable');
        if (via === 'rest') expect([notice.status, notice.code]).to.deep.equal([404, 'not_found']);
        const blank = await call(svc, via, 'brouillons.create', { nature: 'lettre', titre: '  ', contenu: 'x', marche_id: records.marcheId }, me);
        expect(blank.message).to.contain('« titre » est vide');
        if (via === 'rest') expect(blank.status).to.equal(400);
        const file = await call(svc, via, 'brouillons.create', { nature: 'lettre', titre: 'Lettre', contenu: 'x', dossier_id: '3f2b8c1e-9a4d-4e6f-8b2a-1c3d5e7f9a0b' }, me);
        expect(file.message).to.contain('Dossier de réponse introuvable');
        if (via === 'rest') expect(file.status).to.equal(404);
      });

      it('accepts exactly 64 KiB of UTF-8 and refuses one byte more, naming the size', async () => {
        // 'é' is two bytes: 32,768 of them are 65,536 bytes in 32,768 characters (under the character bound).
        const full = 'é'.repeat(32768);
        const ok = await call(svc, via, 'brouillons.create', { nature: 'autre', titre: 'Plein', contenu: full, marche_id: records.marcheId }, me);
        expect(ok.ok, ok.message).to.equal(true);
        expect(ok.body.brouillon.taille).to.equal(65536);
        const over = await call(svc, via, 'brouillons.create', { nature: 'autre', titre: 'Trop', contenu: `${full}a`, marche_id: records.marcheId }, me);
        expect(over.ok).to.equal(false);
        if (via === 'rest') expect([over.status, over.code]).to.deep.equal([400, 'invalid_arguments']);
        expect(over.message).to.contain('65537 octets').and.contain('64 Kio');
        const update = await call(svc, via, 'brouillons.update', { id: ok.body.brouillon.id, version: 1, contenu: `${full}a` }, me);
        expect(update.message).to.contain('65537 octets');
        expect((await svc.db('draft_versions').where('draft_id', ok.body.brouillon.id)).length).to.equal(1);
      });

      it('keeps every previous version, lists them newest first, and refuses a stale version with 409', async () => {
        const { body } = await call(svc, via, 'brouillons.create', { nature: 'question_acheteur', titre: 'Q1', contenu: 'v1', marche_id: records.marcheId }, me);
        const id = body.brouillon.id;
        const colleague = await svc.createAccount({ role: 'membre' });
        const theirs = { token: await svc.tokenFor(colleague), mcp: me.mcp };
        const second = await svc.rest('brouillons.update', { id, version: 1, contenu: 'v2' }, { token: theirs.token });
        expect(second.json.brouillon).to.include({ version: 2, contenu: 'v2', titre: 'Q1', nature: 'question_acheteur', modifie_par: colleague.userId, cree_par: svc.account.userId });
        const third = await call(svc, via, 'brouillons.update', { id, version: 2, titre: 'Q1 bis', nature: 'autre' }, me);
        expect(third.body.brouillon).to.include({ version: 3, contenu: 'v2', titre: 'Q1 bis', nature: 'autre' });
        const stale = await call(svc, via, 'brouillons.update', { id, version: 2, contenu: 'perdu' }, me);
        expect(stale.ok).to.equal(false);
        if (via === 'rest') expect([stale.status, stale.code]).to.deep.equal([409, 'conflict']);
        expect(stale.message).to.contain('version actuelle 3');
        const versions = await call(svc, via, 'brouillons.list', { id }, me);
        expect(versions.body.items).to.deep.equal([]);
        expect(versions.body.brouillon).to.deep.equal(third.body.brouillon);
        expect(versions.body.total).to.equal(3);
        expect(versions.body.versions.map((v: any) => [v.version, v.titre, v.contenu, v.ecrit_par])).to.deep.equal([
          [3, 'Q1 bis', 'v2', svc.account.userId],
          [2, 'Q1', 'v2', colleague.userId],
          [1, 'Q1', 'v1', svc.account.userId],
        ]);
        const paged = await call(svc, via, 'brouillons.list', { id, limit: 2 }, me);
        const rest = await call(svc, via, 'brouillons.list', { id, limit: 2, cursor: paged.body.next_cursor }, me);
        expect(rest.body.versions.map((v: any) => v.version)).to.deep.equal([1]);
        expect(rest.body.next_cursor).to.equal(null);
      });

      it('deletes a draft with its versions, answering what was removed; a second delete and its versions are 404', async () => {
        const { body } = await call(svc, via, 'brouillons.create', { nature: 'lettre', titre: 'Lettre', contenu: 'Madame, Monsieur,', marche_id: records.marcheId }, me);
        const updated = await call(svc, via, 'brouillons.update', { id: body.brouillon.id, version: 1, contenu: 'Madame la Maire,' }, me);
        const del = await call(svc, via, 'brouillons.delete', { id: body.brouillon.id }, me);
        expect(del.body).to.deep.equal({ action: 'suppression', supprime: updated.body.brouillon, versions_supprimees: 2 });
        expect(await svc.db('draft_versions').where('draft_id', body.brouillon.id)).to.deep.equal([]);
        const again = await call(svc, via, 'brouillons.delete', { id: body.brouillon.id }, me);
        if (via === 'rest') expect([again.status, again.code]).to.deep.equal([404, 'not_found']);
        expect(again.message).to.contain('Brouillon introuvable');
        const versions = await call(svc, via, 'brouillons.list', { id: body.brouillon.id }, me);
        expect(versions.ok).to.equal(false);
      });
    });
  }

  it('keeps the 50 latest versions of a draft, the oldest dropped past them', async () => {
    const { json } = await svc.rest('brouillons.create', { nature: 'autre', titre: 'Long', contenu: 'v1', marche_id: records.marcheId });
    for (let v = 1; v <= 51; v++) {
      const r = await svc.rest('brouillons.update', { id: json.brouillon.id, version: v, contenu: `v${v + 1}` });
      expect(r.status, JSON.stringify(r.json)).to.equal(200);
    }
    const kept = (await svc.db('draft_versions').where('draft_id', json.brouillon.id).orderBy('version').select('version')).map((r: any) => Number(r.version));
    expect(kept).to.deep.equal(Array.from({ length: 50 }, (_, i) => i + 3));
    const listed = await svc.rest('brouillons.list', { id: json.brouillon.id, limit: 1 });
    expect([listed.json.total, listed.json.versions[0].contenu]).to.deep.equal([50, 'v52']);
  });

  it('attaches a draft to a response file (its notice with it), filters lists by notice, file and nature, the same on REST and MCP', async () => {
    const file = (await svc.rest('dossiers.create', { marche_id: records.marcheId })).json.dossier;
    const attached = await svc.rest('brouillons.create', { nature: 'memoire_technique', titre: 'Moyens', contenu: 'Deux équipes.', dossier_id: file.id });
    expect(attached.json.brouillon).to.include({ dossier_id: file.id, marche_id: records.marcheId });
    const other = await seedPublicRecords(svc.db, '2');
    const mismatch = await svc.rest('brouillons.create', { nature: 'autre', titre: 'x', contenu: 'x', dossier_id: file.id, marche_id: other.marcheId });
    expect(mismatch.status).to.equal(400);
    await svc.rest('brouillons.create', { nature: 'question_acheteur', titre: 'Accès', contenu: 'Horaires du site ?', marche_id: records.annonceId });
    await svc.rest('brouillons.create', { nature: 'lettre', titre: 'Lettre', contenu: 'Madame,', marche_id: other.marcheId });
    const all = await svc.rest('brouillons.list', { limit: 2 });
    expect(all.json.total).to.equal(3);
    const next = await svc.rest('brouillons.list', { limit: 2, cursor: all.json.next_cursor });
    expect(new Set([...all.json.items, ...next.json.items].map((d: any) => d.id)).size).to.equal(3);
    expect((await svc.rest('brouillons.list', { marche_id: records.annonceId })).json.items.map((d: any) => d.titre).sort()).to.deep.equal(['Accès', 'Moyens']);
    expect((await svc.rest('brouillons.list', { dossier_id: file.id })).json.items.map((d: any) => d.titre)).to.deep.equal(['Moyens']);
    expect((await svc.rest('brouillons.list', { nature: 'lettre' })).json.items.map((d: any) => d.marche_id)).to.deep.equal([other.marcheId]);
    const viaMcp = await call(svc, 'mcp', 'brouillons.list', { marche_id: records.marcheId }, me);
    expect(viaMcp.body).to.deep.equal((await svc.rest('brouillons.list', { marche_id: records.marcheId })).json);
  });
});
