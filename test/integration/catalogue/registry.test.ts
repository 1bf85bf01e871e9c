// The whole registry, tool by tool: described, scoped, handled, callable on its addresses, and every answer identical on REST and MCP, conform to its output schema, free of contact details, and with every timestamp in one form (Paris time with its offset, to the second).
import { expect } from 'chai';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Contract } from '../../../src/contract/runtime.js';
import { PROFILE_NAMES, type ToolEntry } from '../../../src/contract/types.js';
import { createRegistry } from '../../../src/domains/index.js';
import { appendEvents } from '../../../src/domains/events/store.js';
import { OPERATION_NAMES } from '../../../generated/handler-map.js';
import { importDemoDataIfEmpty } from '../../../scripts/demo/first-start.js';
import { parisIso } from '../../../src/platform/paris-time.js';
import { startTestService, type TestService } from '../../helpers/service.js';

const contract = Contract.load();
const callable = contract.tools.filter((t) => t.status !== 'preparation');

/** Telephone numbers, e-mail addresses and web addresses other than the service's own. */
function contactDetails(text: string, ownUrl: string): string[] {
  const found: string[] = [];
  for (const m of text.matchAll(/[\w.+-]+@[\w-]+\.[\w.]+/g)) found.push(m[0]);
  for (const m of text.matchAll(/(?:\+33\s?|\b0)[1-9](?:[\s.-]?\d{2}){4}\b/g)) found.push(m[0]);
  for (const m of text.matchAll(/\bhttps?:\/\/[^\s"']+|\bwww\.[^\s"']+/g)) if (!m[0].startsWith(ownUrl)) found.push(m[0]);
  return found;
}

/**
 * Addresses the caller itself wrote (the recipients of the e-mail tools' recipe examples),
 * which the e-mail tools answer back: not contact details of a public record.
 */
const CALLER_WRITTEN = new Set(
  contract.tools
    .filter((t) => t.name.startsWith('emails_'))
    .flatMap((t) => (t.recipes ?? []).map((r) => JSON.stringify(r.example ?? {})))
    .flatMap((text) => [...text.matchAll(/[\w.+-]+@[\w-]+\.[\w.]+/g)].map((m) => m[0])),
);

/** A string that holds a date and a time (a timestamp, whatever its form). */
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}/;

/**
 * Every timestamp of an answer that is not in the service's one form: ISO 8601 to the
 * second with the Paris offset of that moment (`2026-11-21T10:00:00+01:00`); no UTC `Z`, no
 * milliseconds, no other offset. Dates alone (`AAAA-MM-JJ`) are days, not moments.
 */
function foreignTimestamps(value: unknown, path = ''): string[] {
  if (typeof value === 'string') return TIMESTAMP.test(value) && (!Number.isFinite(Date.parse(value)) || parisIso(new Date(value)) !== value) ? [`${path} = ${value}`] : [];
  if (Array.isArray(value)) return value.flatMap((v, i) => foreignTimestamps(v, `${path}[${i}]`));
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([k, v]) => foreignTimestamps(v, path ? `${path}.${k}` : k));
}

/** Values that move with every call (the quota counters, the preview's window, a signed link's expiry to the second): equal shapes, not equal values. */
const MOVING = new Set(['utilises', 'prochaine_liberation', 'depuis', 'jusqu_a', 'download_url']);
function steady(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(steady);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, MOVING.has(k) ? typeof v : steady(v)]));
}

/** Arguments to call a tool with: its recipe examples, or an empty object. */
function sampleArguments(tool: ToolEntry): Record<string, unknown>[] {
  const target = tool.status === 'alias' ? contract.tools.find((t) => t.name === tool.aliasOf) : tool;
  const examples = (target?.recipes ?? []).map((r) => r.example).filter((e): e is Record<string, unknown> => e !== undefined);
  return examples.length ? examples : [{}];
}

/**
 * Workspace tools act on an object of the caller's organisation, and a write cannot be
 * replayed as is (a target is followed once, a version is used once): before each call,
 * the state its recipe example needs is made afresh through REST, and its id and version
 * replace the example's.
 */
/** A notice of the demo data (its identifiers follow the date of the import). */
async function demoNotice(svc: TestService): Promise<{ type: 'marche'; id: string }> {
  const row = await svc.db('notices').orderBy('annonce_id').first('annonce_id');
  return { type: 'marche', id: row.annonce_id as string };
}
const WORKSPACE_SETUP: Record<string, (svc: TestService) => Promise<Record<string, unknown>>> = {
  suivis_creer: async (svc) => {
    await svc.db('follow_ups').delete();
    return { cible: await demoNotice(svc) };
  },
  suivis_modifier: async (svc) => {
    await svc.db('follow_ups').delete();
    const { json } = await svc.rest('suivis.create', { cible: await demoNotice(svc) });
    return { id: json.suivi.id, version: json.suivi.version };
  },
  suivis_supprimer: async (svc) => {
    await svc.db('follow_ups').delete();
    const { json } = await svc.rest('suivis.create', { cible: await demoNotice(svc) });
    return { id: json.suivi.id };
  },
  brouillons_creer: async (svc) => ({ marche_id: (await demoNotice(svc)).id }),
  brouillons_modifier: async (svc) => {
    const { json } = await svc.rest('brouillons.create', { nature: 'memoire_technique', titre: 'Méthodologie', contenu: 'Phase 1.', marche_id: (await demoNotice(svc)).id });
    return { id: json.brouillon.id, version: json.brouillon.version };
  },
  brouillons_supprimer: async (svc) => {
    const { json } = await svc.rest('brouillons.create', { nature: 'lettre', titre: 'Lettre', contenu: 'Madame, Monsieur,', marche_id: (await demoNotice(svc)).id });
    return { id: json.brouillon.id };
  },
  dossiers_creer: async (svc) => {
    await svc.db('response_files').delete();
    return { marche_id: (await demoNotice(svc)).id };
  },
  // Reads: the same file for the MCP call and the REST call, so that both answers compare.
  dossier_consulter: async (svc) => ({ id: await demoResponseFile(svc) }),
  dossier_exporter: async (svc) => ({ id: await demoResponseFile(svc) }),
  dossiers_modifier: async (svc) => {
    await svc.db('response_files').delete();
    const { json } = await svc.rest('dossiers.create', { marche_id: (await demoNotice(svc)).id });
    return { id: json.dossier.id, version: json.dossier.version };
  },
};
/** The response file of the demo notice, opened when there is none. */
async function demoResponseFile(svc: TestService): Promise<string> {
  const listed = await svc.rest('dossiers.list', { limit: 1 });
  if (listed.json.items.length) return listed.json.items[0].id as string;
  return (await svc.rest('dossiers.create', { marche_id: (await demoNotice(svc)).id })).json.dossier.id as string;
}

describe('catalogue', () => {
  it('gives every entry a unique snake_case name, a title, a description, a scope, an effect and a status', () => {
    const names = contract.tools.map((t) => t.name);
    expect(new Set(names).size).to.equal(names.length);
    for (const t of contract.tools) {
      expect(t.name, t.name).to.match(/^[a-z][a-z0-9_]*$/);
      expect(t.title, t.name).to.be.a('string').and.not.empty;
      expect(t.description.length, t.name).to.be.greaterThan(40);
      expect(['mcp:read', 'mcp:write'], t.name).to.include(t.scope);
      expect(['read', 'write'], t.name).to.include(t.effect);
      expect(['active', 'alias', 'preparation'], t.name).to.include(t.status);
    }
  });

  it('has a handler for every operation and no handler outside the contract', () => {
    const registry = createRegistry({ db: null as never, contract, now: () => new Date(), quota: null as never, publicUrl: 'http://exemple', cursorKey: 'k', dceLinkKey: 'l', eventAckKey: 'e', dceStore: null as never });
    expect(Object.keys(registry).sort()).to.deep.equal([...OPERATION_NAMES].sort());
    expect([...contract.operations.keys()].sort()).to.deep.equal([...OPERATION_NAMES].sort());
    for (const name of OPERATION_NAMES) expect(registry[name], name).to.be.a('function');
  });

  it('reaches every operation from an active tool, and every tool reaches existing operations', () => {
    const reached = new Set(contract.tools.filter((t) => t.status === 'active').flatMap((t) => t.operations));
    expect([...reached].sort()).to.deep.equal([...contract.operations.keys()].sort());
  });

  it('serves on the connectors address only the four connector tools of the spec', () => {
    const allowed = ['annuaire_entreprises', 'marches_rechercher', 'marches_dce', 'marches_dce_lien_obtenir'];
    for (const t of contract.listedTools('connectors')) expect(allowed).to.include(t.name);
  });

  it('keeps the two subscription (plan) tools off the assistant address', () => {
    for (const t of contract.listedTools('assistant')) expect(t.name).to.not.match(/^(abonnement|formule)_/);
  });
});

describe('every tool over both transports', () => {
  let svc: TestService;
  const clients = new Map<string, Client>();

  before(async function () {
    // The demo set's import: well under a minute alone, longer on a machine shared with other runs.
    this.timeout(240000);
    svc = await startTestService();
    // The demo data set, written in the real formats (contact fields filled, as the real
    // files have them) and imported by the real importers.
    await importDemoDataIfEmpty(svc.db, () => undefined, svc.dceStore);
    for (const profile of PROFILE_NAMES) {
      const path = contract.profile(profile).path;
      const client = new Client({ name: 'catalogue-test', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${svc.url}${path}`), { requestInit: { headers: { Authorization: `Bearer ${svc.token}` } } }));
      clients.set(profile, client);
    }
  });
  after(async () => {
    for (const c of clients.values()) await c.close();
    await svc.close();
  });

  it('announces on each address exactly its active tools', async () => {
    for (const profile of PROFILE_NAMES) {
      const { tools } = await (clients.get(profile) as Client).listTools();
      expect(tools.map((t) => t.name).sort(), profile).to.deep.equal(contract.listedTools(profile).map((t) => t.name).sort());
    }
  });

  /**
   * Tools whose arguments name objects of the caller's own workspace, which no recipe example
   * can hold: made live, as an automation gets them (an alert, a subscription to it, an event
   * written for it with a notice of the demo data as its record, and its token).
   */
  async function subscribedWithEvent(): Promise<{ alerte_id: string; subscription_id: string; ack_token: string }> {
    const alert = await svc.rest('alertes.create', { name: `Catalogue ${Math.random().toString(36).slice(2)}`, query: 'couverture' });
    const alerte_id = alert.json.alerte.id as string;
    const subscription_id = (await svc.rest('events.subscribe', { alerte_id, key: 'catalogue' })).json.subscription_id as string;
    const notice = (await svc.rest('marches.search', { query: 'travaux', limit: 1 })).json.results[0];
    await appendEvents(svc.db, { id: alerte_id, organisationId: svc.account.organisationId as string }, [{ kind: 'nouveau_marche', source: 'marche', occurredAt: new Date().toISOString(), record: notice }], new Date());
    const ack_token = (await svc.rest('events.poll', { subscription_id })).json.events[0].ack_token as string;
    return { alerte_id, subscription_id, ack_token };
  }
  const LIVE_ARGUMENTS: Record<string, () => Promise<Record<string, unknown>[]>> = {
    evenements_abonnement_creer: async () => [{ alerte_id: (await subscribedWithEvent()).alerte_id, key: 'catalogue-creer' }],
    evenements_lire: async () => [{ subscription_id: (await subscribedWithEvent()).subscription_id, limit: 100 }],
    evenements_acquitter: async () => {
      const { subscription_id, ack_token } = await subscribedWithEvent();
      return [{ subscription_id, ack_token }];
    },
  };

  for (const tool of callable) {
    for (const profile of tool.profiles) {
      it(`${tool.name} on ${profile}: same answer as REST ${tool.operations.join(', ')}, conform, no contact details`, async () => {
        const name = tool.status === 'alias' ? (tool.aliasOf as string) : tool.name;
        const setup = WORKSPACE_SETUP[name];
        const live = LIVE_ARGUMENTS[name];
        for (const example of live ? await live() : sampleArguments(tool)) {
          const args = setup ? { ...example, ...(await setup(svc)) } : example;
          const { operation } = contract.resolveToolCall(tool, args);
          const viaMcp = await (clients.get(profile) as Client).callTool({ name: tool.name, arguments: args });
          expect(viaMcp.isError, JSON.stringify(viaMcp.content)).to.not.equal(true);
          const restArgs = contract.resolveToolCall(tool, setup ? { ...example, ...(await setup(svc)) } : example).args;
          const viaRest = await svc.rest(operation, restArgs);
          expect(viaRest.status, JSON.stringify(viaRest.json)).to.equal(200);
          expect(contract.outputProblem(operation, viaMcp.structuredContent)).to.equal(null);
          expect(contract.outputProblem(operation, viaRest.json)).to.equal(null);
          expect(foreignTimestamps(viaMcp.structuredContent), `${tool.name} (MCP)`).to.deep.equal([]);
          expect(foreignTimestamps(viaRest.json), `${operation} (REST)`).to.deep.equal([]);
          // A read answers the same on both; a write has changed the state in between.
          if (contract.operation(operation)?.effect === 'read') expect(steady(viaMcp.structuredContent)).to.deep.equal(steady(viaRest.json));
          const text = JSON.stringify(viaMcp);
          expect(contactDetails(text, svc.url).filter((found) => !CALLER_WRITTEN.has(found)), text.slice(0, 200)).to.deep.equal([]);
        }
      });
    }
  }

  it('reads the checklist of a response file in a demo consultation file RC, through the real PDF reading', async () => {
    const row = (await svc.db('dce_files').whereNotNull('marche_id').orderBy('id').first('marche_id')) as { marche_id: string };
    await svc.db('response_files').where('marche_id', row.marche_id).delete();
    const { json } = await svc.rest('dossiers.create', { marche_id: row.marche_id });
    expect(json.dossier.source.type).to.equal('rc');
    const fromRc = json.dossier.pieces.filter((p: { origine: { type: string } }) => p.origine.type === 'rc');
    expect(fromRc.map((p: { code: string }) => p.code)).to.deep.equal(['dc1', 'dume', 'dc2', 'memoire_technique', 'attestation_assurance', 'qualification', 'planning']);
    // The page is a reading page (as marches_dce numbers them): each passage is in it, and names the whole list in one sentence.
    for (const p of fromRc as { origine: { piece: string; page: number; extrait: string } }[]) {
      expect(p.origine.piece).to.equal('01 RC.pdf');
      const page = (await svc.db('dce_pages as g').join('dce_pieces as p', (j) => j.on('p.dce_id', 'g.dce_id').andOn('p.position', 'g.position')).where({ 'p.dce_id': json.dossier.source.dce_id, 'p.filename': '01 RC.pdf', 'g.page': p.origine.page }).first('g.text')) as { text: string };
      expect(page.text.replace(/\s+/g, ' ')).to.contain(p.origine.extrait);
      expect(p.origine.extrait).to.match(/^Chaque candidat produit .* le planning prévisionnel\.$/);
    }
  });

  it('says in referentiel_sources that every source of the demo data holds records, consultation files included', async () => {
    const { json } = await svc.rest('referentiels.sources', {});
    const empty = (json.items as { code: string; donnees: { enregistrements: number } }[]).filter((s) => s.donnees.enregistrements === 0).map((s) => s.code);
    expect(empty).to.deep.equal([]);
  });

  it('returns no contact detail in any company record of the demo data (RGE companies included)', async function () {
    this.timeout(60000);
    const rge = await svc.db('rge_certifications as r').join('establishments as e', 'e.siret', 'r.siret').distinct('e.siren').limit(25);
    const others = await svc.db('companies').select('siren').orderBy('siren').limit(25);
    const sirens = [...new Set([...rge, ...others].map((r: { siren: string }) => r.siren))];
    expect(sirens.length).to.be.greaterThan(20);
    const client = clients.get('connectors') as Client;
    for (const siren of sirens) {
      const viaMcp = await client.callTool({ name: 'annuaire_entreprises', arguments: { siren } });
      const text = JSON.stringify(viaMcp);
      expect(contactDetails(text, svc.url), siren).to.deep.equal([]);
    }
    const search = await svc.rest('entreprises.search', { rge: true, limit: 50 });
    expect(search.json.results.length).to.be.greaterThan(0);
    expect(contactDetails(JSON.stringify(search.json), svc.url)).to.deep.equal([]);
  });

  it('refuses a tool in preparation and a tool of another address with -32601', async () => {
    const client = clients.get('connectors') as Client;
    const err = await client.callTool({ name: 'referentiel_sources', arguments: {} }).catch((e: { code?: number }) => e);
    expect((err as { code?: number }).code).to.equal(-32601);
  });
});
