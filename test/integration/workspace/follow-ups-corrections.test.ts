// A followed notice corrected (deadline moved) or cancelled by a later BOAMP notice, once imported, shows in `suivis` the new deadline or the cancellation and what changed (`avis.modification`), the same on REST and MCP.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { importFile } from '../../../src/import/run.js';
import { IMPORTERS } from '../../../src/domains/importers.js';
import { mcpClient } from '../../helpers/mcp.js';
import { startTestService, type TestService } from '../../helpers/service.js';
import { call, type Via } from './fixtures.js';

const EXCERPTS = fileURLToPath(new URL('../../domains/notices/fixtures/boamp-forms-excerpts.json', import.meta.url));
const silent = () => ({ update: () => undefined, stop: () => undefined });
type Answer = { total_count: number; results: Record<string, unknown>[] };

describe('workspace: a followed notice corrected or cancelled by a later notice', function () {
  this.timeout(60000);
  let svc: TestService;
  let me: { token: string; mcp: Client };
  let dir: string;
  const excerpts = JSON.parse(readFileSync(EXCERPTS, 'utf8')) as Answer;
  const [first, second, , , correction, cancellation] = excerpts.results;
  const ids: { moved?: string; cancelled?: string } = {};

  const importNotices = (name: string, results: unknown[]) => {
    const path = join(dir, name);
    writeFileSync(path, JSON.stringify({ total_count: results.length, results }));
    return importFile(svc.db, IMPORTERS.boamp as never, path, { progress: silent });
  };
  const followed = async (via: Via) => {
    const r = await call(svc, via, 'suivis.list', { type: 'marche' }, me);
    expect(r.ok, r.message).to.equal(true);
    return r.body;
  };
  const avisOf = (body: any, suiviId: string | undefined) => body.items.find((s: any) => s.id === suiviId)?.avis;

  before(async () => {
    svc = await startTestService();
    me = { token: svc.token, mcp: await mcpClient(`${svc.url}/api/mcp`, svc.token) };
    dir = mkdtempSync(join(tmpdir(), 'follow-ups-corrections-'));
    await importNotices('notices.json', [first, second]);
    // Followed by their BOAMP number, as a user copies it from the notice.
    for (const [key, annonce] of [['moved', '26-90001'], ['cancelled', '26-90002']] as const) {
      const r = await svc.rest('suivis.create', { cible: { type: 'marche', id: annonce } });
      expect(r.status, JSON.stringify(r.json)).to.equal(200);
      ids[key] = r.json.suivi.id;
    }
  });
  after(async () => {
    await me.mcp.close();
    await svc.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('before any later notice: the deadline followed, nothing changed', async () => {
    for (const via of ['rest', 'mcp'] as Via[]) {
      const body = await followed(via);
      expect(avisOf(body, ids.moved)).to.include({ date_limite: '2026-09-15T12:00:00+02:00', date_limite_suivie: '2026-09-15T12:00:00+02:00', date_limite_modifiee: false, annule: false, modification: null });
      expect(avisOf(body, ids.cancelled)).to.include({ annule: false, modification: null });
    }
  });

  it('after the correction and the cancellation are imported: the moved deadline, the cancellation and what changed, the same on REST and MCP', async () => {
    const report = await importNotices('corrections.json', [correction, cancellation]);
    expect(report).to.include({ read: 2, inserted: 2 });
    const rest = await followed('rest');
    expect(avisOf(rest, ids.moved)).to.deep.include({
      present: true,
      date_limite: '2026-10-06T12:00:00+02:00',
      date_limite_suivie: '2026-09-15T12:00:00+02:00',
      date_limite_modifiee: true,
      annule: false,
      modification: 'date limite fixée au 06/10/2026 par l’avis rectificatif 26-91001',
    });
    expect(avisOf(rest, ids.cancelled)).to.deep.include({ present: true, annule: true, etat: 'AVIS_ANNULE', modification: 'avis annulé par l’avis 26-91002 du 02/09/2026' });
    // The notice's own record says the same change.
    const notice = (await svc.rest('marches.get', { marche_id: avisOf(rest, ids.moved).marche_id })).json.results[0];
    expect(notice.fields.modification).to.deep.include({ par: '26-91001', libelle: avisOf(rest, ids.moved).modification });
    expect(await followed('mcp')).to.deep.equal(rest);
  });

  it('taking note of the new deadline keeps the change said', async () => {
    for (const via of ['rest', 'mcp'] as Via[]) {
      const body = await followed(via);
      const current = avisOf(body, ids.moved);
      const version = body.items.find((s: any) => s.id === ids.moved).version;
      const noted = await call(svc, via, 'suivis.update', { id: ids.moved, version, accepter_date_limite: true }, me);
      expect(noted.ok, noted.message).to.equal(true);
      expect(noted.body.suivi.avis).to.deep.include({ date_limite_suivie: current.date_limite, date_limite_modifiee: false, modification: current.modification });
    }
  });
});
