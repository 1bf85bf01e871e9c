// Issue 16 (workspace, follow-ups): suivis.* create, list with filters and cursors, update along the documented state machine (409 on an impossible move or a stale version), delete answering what was removed, a moved or cancelled notice shown at read time; same on REST and MCP.
import { expect } from 'chai';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { mcpClient } from '../../helpers/mcp.js';
import { startTestService, type TestService } from '../../helpers/service.js';
import { call, seedPublicRecords, type PublicRecords, type Via } from './fixtures.js';

describe('workspace: follow-ups (suivis.*)', function () {
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
    await svc.db('follow_ups').delete();
  });

  for (const via of ['rest', 'mcp'] as Via[]) {
    describe(`over ${via}`, () => {
      it('follows a notice by its annonce_id, with the notice deadline as due date and who/when', async () => {
        const r = await call(svc, via, 'suivis.create', { cible: { type: 'marche', id: records.annonceId }, tags: ['Toiture', 'toiture ', 'urgent'], notes: 'Visite à prévoir.' }, me);
        expect(r.ok, r.message).to.equal(true);
        const s = r.body.suivi;
        expect(s.cible).to.deep.equal({ type: 'marche', id: records.marcheId, libelle: 'Réfection de la toiture du gymnase 1' });
        expect(s.statut).to.equal('a_etudier');
        expect(s.statut_libelle).to.equal('à étudier');
        expect(s.transitions_possibles).to.deep.equal(['en_cours', 'abandonne']);
        expect(s.echeance).to.equal('2026-09-30');
        expect(s.tags).to.deep.equal(['toiture', 'urgent']);
        expect(s.version).to.equal(1);
        expect(s.cree_par).to.equal(svc.account.userId);
        expect(s.modifie_par).to.equal(svc.account.userId);
        expect(s.cree_le).to.match(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?[+-]\d{2}:\d{2}$/);
        expect(s.avis).to.deep.equal({ marche_id: records.marcheId, present: true, date_limite: records.deadline, date_limite_suivie: records.deadline, date_limite_modifiee: false, annule: false, etat: 'INITIAL', modification: null });
        const again = await call(svc, via, 'suivis.create', { cible: { type: 'marche', id: records.marcheId } }, me);
        expect(again.ok).to.equal(false);
        if (via === 'rest') expect([again.status, again.code]).to.deep.equal([409, 'conflict']);
        expect(again.message).to.contain(s.id);
      });

      it('follows a consultation file, a company and a buyer, and refuses what does not exist (404) or is no SIREN (400)', async () => {
        const dce = await call(svc, via, 'suivis.create', { cible: { type: 'dce', id: records.dceId } }, me);
        expect(dce.body.suivi.cible.libelle).to.equal('DCE gymnase 1');
        expect(dce.body.suivi.avis.marche_id).to.equal(records.marcheId);
        expect(dce.body.suivi.echeance).to.equal('2026-09-30');
        const company = await call(svc, via, 'suivis.create', { cible: { type: 'entreprise', id: records.siren }, echeance: '2026-12-01' }, me);
        expect(company.body.suivi.cible.libelle).to.equal('Toitures Armor 1');
        expect(company.body.suivi.avis).to.equal(null);
        expect(company.body.suivi.echeance).to.equal('2026-12-01');
        const buyer = await call(svc, via, 'suivis.create', { cible: { type: 'acheteur', id: records.buyerId } }, me);
        expect(buyer.body.suivi.cible.libelle).to.equal('Commune de Plouha');
        const unknown = await call(svc, via, 'suivis.create', { cible: { type: 'entreprise', id: '999999999' } }, me);
        expect(unknown.ok).to.equal(false);
        expect(unknown.message).to.contain('Entreprise introuvable');
        if (via === 'rest') expect(unknown.status).to.equal(404);
        const bad = await call(svc, via, 'suivis.create', { cible: { type: 'entreprise', id: '12ab' } }, me);
        expect(bad.message).to.contain('SIREN');
        if (via === 'rest') expect(bad.status).to.equal(400);
      });

      it('moves along the state machine, refuses an impossible move and a stale version with 409', async () => {
        const { body } = await call(svc, via, 'suivis.create', { cible: { type: 'marche', id: records.marcheId } }, me);
        const id = body.suivi.id;
        const jump = await call(svc, via, 'suivis.update', { id, version: 1, statut: 'gagne' }, me);
        expect(jump.ok).to.equal(false);
        if (via === 'rest') expect([jump.status, jump.code]).to.deep.equal([409, 'conflict']);
        expect(jump.message).to.contain('Transition impossible').and.contain('en_cours');
        let version = 1;
        for (const statut of ['en_cours', 'depose', 'gagne']) {
          const r = await call(svc, via, 'suivis.update', { id, version, statut }, me);
          expect(r.ok, r.message).to.equal(true);
          expect(r.body.suivi.statut).to.equal(statut);
          version = r.body.suivi.version;
        }
        expect(version).to.equal(4);
        const stale = await call(svc, via, 'suivis.update', { id, version: 2, notes: 'trop tard' }, me);
        expect(stale.ok).to.equal(false);
        if (via === 'rest') expect([stale.status, stale.code]).to.deep.equal([409, 'conflict']);
        expect(stale.message).to.contain('version actuelle 4');
        const final = await call(svc, via, 'suivis.update', { id, version: 4, statut: 'abandonne' }, me);
        expect(final.message).to.contain('définitif');
      });

      it('sets an owner among the members only, clears the due date, and keeps untouched fields', async () => {
        const { body } = await call(svc, via, 'suivis.create', { cible: { type: 'marche', id: records.marcheId }, notes: 'n1' }, me);
        const stranger = await svc.createAccount({ organisation: `Autre ${via}` });
        const refused = await call(svc, via, 'suivis.update', { id: body.suivi.id, version: 1, responsable: stranger.userId }, me);
        expect(refused.ok).to.equal(false);
        expect(refused.message).to.contain('responsable');
        const colleague = await svc.createAccount({ role: 'membre' });
        const r = await call(svc, via, 'suivis.update', { id: body.suivi.id, version: 1, responsable: colleague.userId, echeance: null }, me);
        expect(r.ok, r.message).to.equal(true);
        expect(r.body.suivi.responsable).to.equal(colleague.userId);
        expect(r.body.suivi.echeance).to.equal(null);
        expect(r.body.suivi.notes).to.equal('n1');
      });

      it('shows a moved deadline and a cancellation at read time, and takes note of the new deadline', async () => {
        const { body } = await call(svc, via, 'suivis.create', { cible: { type: 'marche', id: records.marcheId } }, me);
        await svc.db('notices').where('marche_id', records.marcheId).update({ date_limite: '2026-10-15T12:00:00+02:00', etat: 'RECTIFICATIF' });
        try {
          const listed = await call(svc, via, 'suivis.list', {}, me);
          const avis = listed.body.items[0].avis;
          expect(avis.date_limite_modifiee).to.equal(true);
          expect(avis.date_limite).to.equal('2026-10-15T12:00:00+02:00');
          expect(avis.date_limite_suivie).to.equal(records.deadline);
          const noted = await call(svc, via, 'suivis.update', { id: body.suivi.id, version: 1, accepter_date_limite: true }, me);
          expect(noted.body.suivi.avis.date_limite_modifiee).to.equal(false);
          await svc.db('notices').where('marche_id', records.marcheId).update({ etat: 'ANNULATION' });
          const after = await call(svc, via, 'suivis.list', {}, me);
          expect(after.body.items[0].avis.annule).to.equal(true);
        } finally {
          await svc.db('notices').where('marche_id', records.marcheId).update({ date_limite: records.deadline, etat: 'INITIAL' });
        }
      });

      it('deletes explicitly, answering what was removed; a second delete is 404', async () => {
        const { body } = await call(svc, via, 'suivis.create', { cible: { type: 'acheteur', id: records.buyerId }, notes: 'à revoir' }, me);
        const del = await call(svc, via, 'suivis.delete', { id: body.suivi.id }, me);
        expect(del.ok).to.equal(true);
        expect(del.body).to.deep.equal({ action: 'suppression', supprime: body.suivi });
        const again = await call(svc, via, 'suivis.delete', { id: body.suivi.id }, me);
        expect(again.ok).to.equal(false);
        if (via === 'rest') expect([again.status, again.code]).to.deep.equal([404, 'not_found']);
      });
    });
  }

  it('lists with filters and cursors, the same on REST and MCP', async () => {
    await svc.rest('suivis.create', { cible: { type: 'marche', id: records.marcheId }, tags: ['toiture'] });
    await svc.rest('suivis.create', { cible: { type: 'dce', id: records.dceId }, statut: 'en_cours' });
    await svc.rest('suivis.create', { cible: { type: 'entreprise', id: records.siren }, tags: ['concurrent'] });
    await svc.rest('suivis.create', { cible: { type: 'acheteur', id: records.buyerId } });
    const first = await svc.rest('suivis.list', { limit: 3 });
    expect(first.json.total).to.equal(4);
    expect(first.json.items).to.have.length(3);
    const second = await svc.rest('suivis.list', { limit: 3, cursor: first.json.next_cursor });
    expect(second.json.items).to.have.length(1);
    expect(second.json.next_cursor).to.equal(null);
    const ids = [...first.json.items, ...second.json.items].map((s: any) => s.id);
    expect(new Set(ids).size).to.equal(4);
    const reused = await svc.rest('suivis.list', { limit: 3, cursor: first.json.next_cursor, type: 'dce' });
    expect([reused.status, reused.json.error.code]).to.deep.equal([400, 'invalid_cursor']);
    expect((await svc.rest('suivis.list', { statut: ['en_cours'] })).json.items.map((s: any) => s.cible.type)).to.deep.equal(['dce']);
    expect((await svc.rest('suivis.list', { tag: 'Concurrent' })).json.items.map((s: any) => s.cible.type)).to.deep.equal(['entreprise']);
    expect((await svc.rest('suivis.list', { marche_id: records.marcheId })).json.items.map((s: any) => s.cible.type).sort()).to.deep.equal(['dce', 'marche']);
    expect((await svc.rest('suivis.list', { echeance_avant: '2026-10-01' })).json.total).to.equal(2);
    const viaMcp = await call(svc, 'mcp', 'suivis.list', { type: 'entreprise' }, me);
    expect(viaMcp.body).to.deep.equal((await svc.rest('suivis.list', { type: 'entreprise' })).json);
  });
});
