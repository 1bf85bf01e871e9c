// The run's report: counts by operation and outcome, by mutation, then the failures —
// grouped (kind, operation, transport) with their count and first case, then each one
// (the first 200) with its input, answer and replay command.
import type { FuzzReport } from './run.js';

export interface ReplayCommand {
  /** The command replaying the whole run, or one case (its index). */
  (seed: number, index?: number): string;
}

const DETAILED = 200;

export function formatReport(report: FuzzReport, replay: ReplayCommand): string {
  const lines: string[] = [];
  const seconds = (report.durationMs / 1000).toFixed(1);
  lines.push(`Fuzz — graine ${report.seed} : ${report.requests} requêtes (${report.cases} cas, REST et MCP) en ${seconds} s, ${report.failures.length} échec(s).`);
  lines.push(`Rejouer : ${replay(report.seed, report.only)}`);
  lines.push('');
  const width = Math.max(...[...report.outcomes.keys()].map((k) => k.length), 10);
  lines.push(`${'opération'.padEnd(width)}  requêtes  issues`);
  for (const [op, outcomes] of [...report.outcomes].sort(([a], [b]) => a.localeCompare(b))) {
    const total = [...outcomes.values()].reduce((s, n) => s + n, 0);
    const detail = [...outcomes].sort(([a], [b]) => a.localeCompare(b)).map(([o, n]) => `${o} ×${n}`).join(' · ');
    lines.push(`${op.padEnd(width)}  ${String(total).padStart(8)}  ${detail}`);
  }
  lines.push('');
  lines.push(`Mutations (cas) : ${[...report.mutations].sort(([, a], [, b]) => b - a).map(([m, n]) => `${m} ×${n}`).join(' · ')}`);
  if (!report.failures.length) return lines.join('\n');

  lines.push('');
  lines.push('Échecs par genre :');
  const groups = new Map<string, { count: number; first: number; example: string }>();
  for (const f of report.failures) {
    const key = `${f.kind} — ${f.operation} via ${f.transport}`;
    const g = groups.get(key);
    if (g) g.count += 1;
    else groups.set(key, { count: 1, first: f.index, example: f.problem });
  }
  for (const [key, g] of [...groups].sort(([, a], [, b]) => b.count - a.count)) {
    lines.push(`  ${String(g.count).padStart(5)} × ${key} (premier : cas ${g.first}) : ${g.example.slice(0, 200)}`);
  }
  lines.push('');
  lines.push(`Échecs${report.failures.length > DETAILED ? ` (les ${DETAILED} premiers sur ${report.failures.length})` : ''} :`);
  for (const f of report.failures.slice(0, DETAILED)) {
    lines.push(`- cas ${f.index}, ${f.operation} via ${f.transport} — ${f.kind} : ${f.problem}`);
    lines.push(`    mutations : ${f.mutations.join(', ')}`);
    lines.push(`    entrée    : ${f.input}`);
    lines.push(`    réponse   : ${f.answer}`);
    lines.push(`    rejouer   : ${replay(f.seed, f.index)}`);
  }
  return lines.join('\n');
}
