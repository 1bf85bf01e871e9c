// Event subscriptions (issue 15): `events.poll` of a full page (100 events, each a notice
// record as the searches return it) through the HTTP API, p50/p99 at one connection, next to
// its target. The alert's log holds 5,000 events written before the subscription (never
// delivered) and 1,000 after, some acknowledged out of order, so the page is read from the
// middle of a log as an automation meets it.
import { randomUUID } from 'node:crypto';
import { openDatabase } from '../../src/platform/db/database.js';
import { appendEvents, type NewEvent } from '../../src/domains/events/store.js';
import { obtainToken } from '../lib/native-flow.js';
import { BENCH_ACCOUNT, benchDatabase, measure, verdict } from './measure.js';
import { startService, stopProcess } from './processes.js';

export const EVENTS_TARGETS = { pollP99Ms: 20 } as const;

const TOWNS = ['Rennes', 'Quimper', 'Vannes', 'Saint-Brieuc', 'Lorient', 'Brest', 'Saint-Malo', 'Lannion'];

/** A notice event as the robot writes it: the record as marches.search returns it. */
export function noticeEvent(i: number, baseUrl: string): NewEvent {
  const id = randomUUID();
  const town = TOWNS[i % TOWNS.length] as string;
  return {
    kind: i % 7 === 0 ? 'rappel_echeance' : 'nouveau_marche',
    source: 'marche',
    occurredAt: new Date(Date.UTC(2026, 10, 1) + i * 60_000).toISOString(),
    record: {
      id,
      titre: `Réfection de la couverture et de la zinguerie du groupe scolaire ${i} — ${town}`,
      resume: `Commune de ${town} · travaux · procédure adaptée · date limite de réponse le 15/12/2026 · lot 1 couverture ardoise, lot 2 zinguerie, lot 3 charpente. Dépose de l'existant, traitement des bois, pose d'ardoise naturelle au crochet, abergements et gouttières.`,
      fields: {
        marche_id: id,
        annonce_id: `26-${100000 + i}`,
        acheteur: `Commune de ${town}`,
        objet: `Réfection de la couverture du groupe scolaire ${i}`,
        type_marche: ['TRAVAUX'],
        procedure: 'Procédure adaptée',
        departements: ['35'],
        date_parution: '2026-11-20',
        date_limite_reponse: '2026-12-15T12:00:00+01:00',
        cpv: ['45261210-9', '45261310-0'],
        nature: 'Avis de marché',
        etat: 'ouvert',
        url: `${baseUrl}/marches/${id}`,
      },
    },
  };
}

async function pollPage(): Promise<{ p50: number; p99: number }> {
  const { databaseUrl, remove } = await benchDatabase('bench-events-');
  try {
    const service = await startService({ PORT: '0', DATABASE_URL: databaseUrl, LOG_LEVEL: 'silent' });
    try {
      const { accessToken } = await obtainToken({ baseUrl: service.url, email: BENCH_ACCOUNT.email, password: BENCH_ACCOUNT.password, scope: 'mcp:read mcp:write' });
      const headers = { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' };
      const post = async <T>(operation: string, body: unknown): Promise<T> => {
        const r = await fetch(`${service.url}/api/mcp/v1/${operation}`, { method: 'POST', headers, body: JSON.stringify(body) });
        const json = (await r.json()) as unknown;
        if (r.status !== 200) throw new Error(`${operation} : ${r.status} ${JSON.stringify(json)}`);
        return json as T;
      };
      type Page = { events: { ack_token: string }[]; has_more: boolean };
      const alert = await post<{ alerte: { id: string } }>('alertes.create', { name: 'Couverture Bretagne', query: 'couverture, toiture', departements: ['35'] });
      const alertRef = { id: alert.alerte.id as string, organisationId: '' };
      const db = openDatabase(databaseUrl);
      try {
        alertRef.organisationId = (await db('alerts').where('id', alertRef.id).first('organisation_id')).organisation_id as string;
        for (let i = 0; i < 5000; i += 500) await appendEvents(db, alertRef, Array.from({ length: 500 }, (_, k) => noticeEvent(i + k, service.url)), new Date());
        const subscription = await post<{ subscription_id: string }>('events.subscribe', { alerte_id: alertRef.id, key: 'bench' });
        for (let i = 5000; i < 6000; i += 500) await appendEvents(db, alertRef, Array.from({ length: 500 }, (_, k) => noticeEvent(i + k, service.url)), new Date());
        // Out-of-order acknowledgements: every tenth of the first 300, the first one left unacknowledged.
        const first = await post<Page>('events.poll', { subscription_id: subscription.subscription_id, limit: 100 });
        for (const [i, e] of first.events.entries()) if (i % 10 === 5) await post('events.ack', { subscription_id: subscription.subscription_id, ack_token: e.ack_token });
        const page = await post<Page>('events.poll', { subscription_id: subscription.subscription_id });
        if (page.events.length !== 100 || !page.has_more) throw new Error('la page mesurée doit compter 100 événements et en annoncer d’autres');
        console.log(`  page de 100 événements : ${Buffer.byteLength(JSON.stringify(page))} octets de JSON`);
        const body = JSON.stringify({ subscription_id: subscription.subscription_id });
        const figures = await measure('events.poll, page pleine (100 événements), 1 cx', { url: `${service.url}/api/mcp/v1/events.poll`, method: 'POST', headers, body }, 1);
        if (figures.errors || figures.non2xx) console.log(`  Attention : ${figures.errors + figures.non2xx} appels en erreur.`);
        // The same run's floor: an admitted call answering a few hundred bytes (the machine's share of the tail).
        await measure('events.subscriptions (1 abonnement), 1 cx, témoin', { url: `${service.url}/api/mcp/v1/events.subscriptions`, method: 'POST', headers, body: '{}' }, 1);
        return { p50: figures.p50, p99: figures.p99 };
      } finally {
        await db.destroy();
      }
    } finally {
      await stopProcess(service);
    }
  } finally {
    remove();
  }
}

export async function benchEvents(): Promise<{ p50: number; p99: number }> {
  console.log('');
  console.log('Abonnements aux événements');
  const poll = await pollPage();
  console.log(`${'events.poll d’une page pleine p99 (1 cx)'.padEnd(52)} ${`${poll.p99} ms`.padStart(14)}   objectif ${`< ${EVENTS_TARGETS.pollP99Ms} ms`.padEnd(14)} ${verdict(poll.p99 < EVENTS_TARGETS.pollP99Ms)}`);
  return poll;
}
