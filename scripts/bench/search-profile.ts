// The cost of each distinct question of the searches-under-load stream, in process: the
// domain's search action called directly (no HTTP), each question once, in the order the
// stream first asks them (the calls a run's result cache cannot answer). Prints the CPU and
// wall time per question (mean, p50, p99) and the costliest questions.
//
//   npx tsx scripts/bench/search-profile.ts <database url> <search> [questions]
import { openDatabase } from '../../src/platform/db/database.js';
import { emptySharedSearchCache } from '../../src/platform/search/search-cache.js';
import { countMatches, type SearchIndex } from '../../src/platform/search/full-text.js';
import { parseQuery } from '../../src/platform/search/query-syntax.js';
import { NOTICES_SEARCH } from '../../src/domains/notices/search-index.js';
import { COMPANIES_SEARCH } from '../../src/domains/companies/search-index.js';
import { AWARDS_SEARCH } from '../../src/domains/awards/search-index.js';
import { ANNOUNCEMENTS_SEARCH } from '../../src/domains/announcements/search-index.js';
import { noticeActions } from '../../src/domains/notices/actions.js';
import { companyActions } from '../../src/domains/companies/actions.js';
import { awardActions } from '../../src/domains/awards/actions.js';
import { announcementActions } from '../../src/domains/announcements/actions.js';
import type { Services } from '../../src/domains/context.js';
import { distinctBodies, wordPairs, zipfStream } from './search-load.js';

const [url, operation = 'entreprises.search', howMany = '200'] = process.argv.slice(2);
if (!url) throw new Error('usage : search-profile.ts <url de base> <recherche> [nombre de questions]');
const INDEXES: Record<string, SearchIndex> = {
  'marches.search': NOTICES_SEARCH,
  'entreprises.search': COMPANIES_SEARCH,
  'attributions.search': AWARDS_SEARCH,
  'bodacc.search': ANNOUNCEMENTS_SEARCH,
};
const db = openDatabase(url);
try {
  // Each question computed, not read from the pages an earlier run stored for the processes (PostgreSQL).
  await emptySharedSearchCache(db);
  const pairs: string[] = [];
  for (const pair of wordPairs(operation)) if ((await countMatches(db, INDEXES[operation] as SearchIndex, parseQuery(pair), 1)) > 0) pairs.push(pair);
  const stream = zipfStream(distinctBodies(operation, pairs), 4242);
  const questions = [...new Set(stream)].slice(0, Number(howMany));
  const services = { db, now: () => new Date(), publicUrl: 'http://localhost', cursorKey: 'profil-des-recherches-sous-charge' } as unknown as Services;
  const actions = { ...noticeActions(services), ...companyActions(services), ...awardActions(services), ...announcementActions(services) } as unknown as Record<
    string,
    (args: unknown) => Promise<{ total_estimated: number }>
  >;
  const action = actions[operation] as (args: unknown) => Promise<{ total_estimated: number }>;
  const measured: { body: string; cpu: number; wall: number; total: number }[] = [];
  const started = process.cpuUsage();
  const t0 = performance.now();
  for (const body of questions) {
    const cpu0 = process.cpuUsage();
    const w0 = performance.now();
    const answer = await action(JSON.parse(body));
    const cpu = process.cpuUsage(cpu0);
    measured.push({ body, cpu: (cpu.user + cpu.system) / 1000, wall: performance.now() - w0, total: answer.total_estimated });
  }
  const all = process.cpuUsage(started);
  const q = (values: number[], p: number) => values.sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * p))] as number;
  const cpu = measured.map((m) => m.cpu);
  const wall = measured.map((m) => m.wall);
  console.log(
    `${operation} : ${measured.length} questions, CPU ${((all.user + all.system) / 1000 / measured.length).toFixed(2)} ms par question ` +
      `(p50 ${q(cpu, 0.5).toFixed(1)}, p99 ${q(cpu, 0.99).toFixed(1)}), temps p50 ${q(wall, 0.5).toFixed(1)} p99 ${q(wall, 0.99).toFixed(1)} ms, ` +
      `en tout ${((performance.now() - t0) / 1000).toFixed(1)} s ; sous le plafond : ${measured.filter((m) => m.total < 1000).length}`,
  );
  // The same questions again: answered from the result cache, the records read fresh.
  const again = process.cpuUsage();
  for (const body of questions) await action(JSON.parse(body));
  const hit = process.cpuUsage(again);
  console.log(`  de nouveau (depuis le cache des résultats) : CPU ${((hit.user + hit.system) / 1000 / questions.length).toFixed(2)} ms par appel`);
  // The costliest by the service's CPU (SQLite works in it), then by wall time (PostgreSQL's work is in its own processes).
  for (const m of [...measured].sort((a, b) => b.cpu - a.cpu).slice(0, 8)) console.log(`  ${m.cpu.toFixed(1).padStart(7)} ms CPU  ${String(m.total).padStart(5)}  ${m.body}`);
  for (const m of [...measured].sort((a, b) => b.wall - a.wall).slice(0, 8)) console.log(`  ${m.wall.toFixed(1).padStart(7)} ms     ${String(m.total).padStart(5)}  ${m.body}`);
} finally {
  await db.destroy();
}
