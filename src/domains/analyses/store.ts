// Reads behind the analyses: the awards a company won, and counts of awards per CPV
// group and department. Aggregates are computed in TypeScript over bounded selections, so
// SQLite and PostgreSQL give the same numbers (same rounding, same order, same ties).
import type { Database } from '../../platform/db/database.js';

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
    .select('a.award_key', 'a.cpv', 'a.departement', 'a.montant', 'a.date_notification', 'a.buyer_id', 'a.acheteur_nom', 'b.nom as buyer_nom')
    .orderBy([{ column: 'a.date_notification', order: 'desc' }, { column: 'a.award_key', order: 'asc' }])
    .limit(cap + 1);
  if (period.from) q.where('a.date_notification', '>=', period.from);
  if (period.to) q.where('a.date_notification', '<=', period.to);
  const rows = (await q) as Record<string, unknown>[];
  return rows.map((r) => ({
    award_key: String(r.award_key),
    cpv: (r.cpv as string | null) ?? null,
    departement: (r.departement as string | null) ?? null,
    montant: r.montant === null || r.montant === undefined ? null : Number(r.montant),
    date_notification: (r.date_notification as string | null) ?? null,
    buyer_id: (r.buyer_id as string | null) ?? null,
    buyer_name: ((r.acheteur_nom ?? r.buyer_nom) as string | null) ?? null,
  }));
}

/** A name the DECP gives the company's establishments, when SIRENE does not know it. */
export async function winnerName(db: Database, siren: string): Promise<string | null> {
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
