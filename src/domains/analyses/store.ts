// Reads behind the analyses: the awards a company won, and counts of awards per CPV
// group and department. Aggregates are computed in TypeScript over bounded selections, so
// SQLite and PostgreSQL give the same numbers (same rounding, same order, same ties).
import type { Database } from '../../platform/db/database.js';
import { directoryNames } from '../awards/import-decp.js';

/** An amount as the analyses count it: 0 means "not published" (framework agreements), not zero euros. */
const publishedAmount = (v: unknown): number | null => (v === null || v === undefined || Number(v) === 0 ? null : Number(v));

/** At most this many awards feed one report (the most recent first). */
export const REPORT_AWARD_CAP = 20_000;

export interface WonAward {
  award_key: string;
  cpv: string | null;
  departement: string | null;
  montant: number | null;
  date_notification: string | null;
  buyer_id: string | null;
  buyer_name: string | null;
}

export interface Period {
  from?: string;
  to?: string;
}

/** The awards one of whose winners has this SIREN, most recent first, at most `cap` + 1 (to tell a cut). */
export async function awardsWonBy(db: Database, siren: string, period: Period, cap: number): Promise<WonAward[]> {
  const q = db('awards as a')
    .leftJoin('buyers as b', 'b.id', 'a.buyer_id')
    .whereExists(db('award_winners as w').select(db.raw('1')).whereRaw('w.award_key = a.award_key').andWhere('w.siren', siren))
    .select('a.award_key', 'a.cpv', 'a.departement', 'a.montant', 'a.date_notification', 'a.buyer_id', 'a.acheteur_nom', 'a.acheteur_siret', 'b.nom as buyer_nom')
    .orderBy([{ column: 'a.date_notification', order: 'desc' }, { column: 'a.award_key', order: 'asc' }])
    .limit(cap + 1);
  if (period.from) q.where('a.date_notification', '>=', period.from);
  if (period.to) q.where('a.date_notification', '<=', period.to);
  const rows = (await q) as Record<string, unknown>[];
  // A buyer published by its SIRET alone is named from the directory.
  const names = await directoryNames(db, rows.map((r) => String(r.acheteur_siret ?? '').slice(0, 9)));
  return rows.map((r) => ({
    award_key: String(r.award_key),
    cpv: (r.cpv as string | null) ?? null,
    departement: (r.departement as string | null) ?? null,
    montant: publishedAmount(r.montant),
    date_notification: (r.date_notification as string | null) ?? null,
    buyer_id: (r.buyer_id as string | null) ?? null,
    buyer_name:
      (r.acheteur_nom as string | null) ??
      (r.buyer_nom && r.buyer_nom !== r.buyer_id ? (r.buyer_nom as string) : null) ??
      names.get(String(r.acheteur_siret ?? '').slice(0, 9)) ??
      null,
  }));
}

/** A name the DECP gives the company's establishments, when SIRENE does not know it. */
export async function winnerName(db: Database, siren: string): Promise<string | null> {
  const known = (await directoryNames(db, [siren])).get(siren);
  if (known) return known;
  const row = await db('award_winners').where({ siren }).whereNotNull('denomination').orderBy('siret').first('denomination');
  return (row?.denomination as string | undefined) ?? null;
}

/** Number of awards of this CPV group (3 digits) and department over the period. */
export async function awardsInMarket(db: Database, family: string, departement: string, period: Period): Promise<number> {
  const q = db('awards').where('departement', departement).andWhere('cpv', 'like', `${family}%`);
  if (period.from) q.where('date_notification', '>=', period.from);
  if (period.to) q.where('date_notification', '<=', period.to);
  const [row] = await q.count('* as n');
  return Number(row?.n ?? 0);
}

/** The awards' selection of a market: CPV prefixes, departments, a buyer, a notification window. */
export interface MarketFilters extends Period {
  cpvPrefixes?: string[];
  departements?: string[];
  acheteurSiret?: string;
}

function marketAwards(db: Database, f: MarketFilters) {
  const q = db('awards as a');
  if (f.cpvPrefixes?.length) {
    const prefixes = f.cpvPrefixes;
    q.where((w) => {
      for (const p of prefixes) w.orWhere('a.cpv', 'like', `${p}%`);
    });
  }
  if (f.departements?.length) q.whereIn('a.departement', f.departements);
  if (f.acheteurSiret) q.where('a.acheteur_siret', f.acheteurSiret);
  if (f.from) q.where('a.date_notification', '>=', f.from);
  if (f.to) q.where('a.date_notification', '<=', f.to);
  return q;
}

/** Number of awards of the selection. */
export async function countMarketAwards(db: Database, f: MarketFilters): Promise<number> {
  const [row] = await marketAwards(db, f).count('* as n');
  return Number(row?.n ?? 0);
}

/** Known positive amounts of the selection with their notification date, most recent first, at most `cap` + 1. */
export async function marketAmounts(db: Database, f: MarketFilters, cap: number): Promise<{ montant: number; date_notification: string | null }[]> {
  const rows = (await marketAwards(db, f)
    .whereNotNull('a.montant')
    .where('a.montant', '>', 0)
    .select('a.montant', 'a.date_notification')
    .orderBy([{ column: 'a.date_notification', order: 'desc' }, { column: 'a.award_key', order: 'asc' }])
    .limit(cap + 1)) as { montant: unknown; date_notification: string | null }[];
  return rows.map((r) => ({ montant: Number(r.montant), date_notification: r.date_notification ?? null }));
}

export interface MarketWin {
  award_key: string;
  montant: number | null;
  date_notification: string | null;
  siren: string;
  denomination: string | null;
}

/** The winners of the `cap` most recent awards of the selection (one row per award and winning SIREN), and whether more awards exist. */
export async function marketWins(db: Database, f: MarketFilters, cap: number): Promise<{ wins: MarketWin[]; awards: number; truncated: boolean }> {
  const keys = (await marketAwards(db, f)
    .select('a.award_key')
    .orderBy([{ column: 'a.date_notification', order: 'desc' }, { column: 'a.award_key', order: 'asc' }])
    .limit(cap + 1)) as { award_key: string }[];
  const truncated = keys.length > cap;
  const kept = keys.slice(0, cap).map((k) => k.award_key);
  const wins: MarketWin[] = [];
  // Chunks keep each statement under the engines' bound-parameter limits.
  for (let i = 0; i < kept.length; i += 5000) {
    const rows = (await db('awards as a')
      .join('award_winners as w', 'w.award_key', 'a.award_key')
      .whereIn('a.award_key', kept.slice(i, i + 5000))
      .select('a.award_key', 'a.montant', 'a.date_notification', 'w.siren', 'w.denomination', 'w.siret')
      .orderBy([{ column: 'a.award_key' }, { column: 'w.siret' }])) as Record<string, unknown>[];
    const seen = new Set<string>();
    for (const r of rows) {
      const key = `${String(r.award_key)}|${String(r.siren)}`;
      if (seen.has(key)) continue;
      seen.add(key);
      wins.push({
        award_key: String(r.award_key),
        montant: publishedAmount(r.montant),
        date_notification: (r.date_notification as string | null) ?? null,
        siren: String(r.siren),
        denomination: (r.denomination as string | null) ?? null,
      });
    }
  }
  // Winners published without a name take the directory's (SIRENE).
  const names = await directoryNames(db, wins.filter((w) => !w.denomination).map((w) => w.siren));
  for (const w of wins) w.denomination ??= names.get(w.siren) ?? null;
  return { wins, awards: kept.length, truncated };
}
