// A company's accounts over the years, as its record shows them: one element per closing
// date, newest first. Where several kinds of accounts close the same day (DANONE publishes
// complete `C` and consolidated `K` accounts), the company's own accounts are shown: complete
// (C), then simplified (S), then any other kind, consolidated (K) last. Values as published,
// odd ones included (a net result larger than the turnover is shown, never "corrected").
import type { Knex } from 'knex';
import { preparedRows } from '../../platform/db/prepared.js';

/** What the record reads of one filed account (table `company_accounts`). */
export interface AccountFields {
  date_cloture: string;
  type_bilan: string;
  confidentiel: boolean;
  chiffre_affaires: number | null;
  marge_brute: number | null;
  ebe: number | null;
  resultat_net: number | null;
}

export interface YearlyAccount {
  exercice: string;
  duree_mois: number | null;
  type_bilan: string;
  comptes_confidentiels: boolean;
  chiffre_affaires: number | null;
  resultat_net: number | null;
  marge_brute: number | null;
  ebe: number | null;
  variation_ca_pct: number | null;
}

/** Years listed on a record at most (the contract's maxItems). */
export const MAX_YEARS = 30;

const TYPE_RANK: Readonly<Record<string, number>> = { C: 0, S: 1, K: 3 };
const rankOf = (type: string) => TYPE_RANK[type] ?? 2;

/** Whole months between two closing dates (YYYY-MM-DD), rounded. */
function monthsBetween(from: string, to: string): number {
  const [fy, fm, fd] = from.split('-').map(Number) as [number, number, number];
  const [ty, tm, td] = to.split('-').map(Number) as [number, number, number];
  return Math.round((ty - fy) * 12 + (tm - fm) + (td - fd) / 30);
}

/**
 * The yearly elements of these accounts, newest first. `duree_mois`: months since the
 * previous closing date known (null for the oldest); `variation_ca_pct`: the turnover's change
 * from that previous year, in %, one decimal (null when either is unknown, confidential or the
 * previous one is 0).
 */
export function yearlyAccounts(accounts: readonly AccountFields[]): YearlyAccount[] {
  const byDate = new Map<string, AccountFields>();
  for (const a of accounts) {
    const current = byDate.get(a.date_cloture);
    if (!current || rankOf(a.type_bilan) < rankOf(current.type_bilan) || (rankOf(a.type_bilan) === rankOf(current.type_bilan) && a.type_bilan < current.type_bilan)) byDate.set(a.date_cloture, a);
  }
  const oldestFirst = [...byDate.values()].sort((a, b) => (a.date_cloture < b.date_cloture ? -1 : 1));
  const years: YearlyAccount[] = [];
  let previous: AccountFields | null = null;
  for (const a of oldestFirst) {
    const ca = a.confidentiel ? null : a.chiffre_affaires;
    const previousCa = previous && !previous.confidentiel ? previous.chiffre_affaires : null;
    years.push({
      exercice: a.date_cloture,
      duree_mois: previous ? monthsBetween(previous.date_cloture, a.date_cloture) : null,
      type_bilan: a.type_bilan,
      comptes_confidentiels: a.confidentiel,
      chiffre_affaires: ca,
      resultat_net: a.confidentiel ? null : a.resultat_net,
      marge_brute: a.confidentiel ? null : a.marge_brute,
      ebe: a.confidentiel ? null : a.ebe,
      variation_ca_pct: ca !== null && previousCa !== null && previousCa !== 0 ? Math.round(((ca - previousCa) / Math.abs(previousCa)) * 1000) / 10 : null,
    });
    previous = a;
  }
  return years.reverse().slice(0, MAX_YEARS);
}

const ACCOUNT_COLUMNS = ['siren', 'date_cloture', 'type_bilan', 'confidentiel', 'chiffre_affaires', 'marge_brute', 'ebe', 'resultat_net'] as const;

/** The accounts of these companies (500 at most): the select, for `accountsFromRows`. */
export function accountsQuery(db: Knex, sirens: readonly string[]): Knex.QueryBuilder {
  return db('company_accounts').whereIn('siren', [...sirens]).select(...ACCOUNT_COLUMNS);
}

/** The rows of `accountsQuery` by SIREN (a closing date and kind once per company: the key). */
export function accountsFromRows(rows: readonly Record<string, unknown>[]): Map<string, AccountFields[]> {
  const out = new Map<string, AccountFields[]>();
  for (const { siren, ...r } of rows as unknown as readonly (AccountFields & { siren: string; confidentiel: unknown })[]) {
    const list = out.get(siren) ?? [];
    list.push({ ...r, confidentiel: Boolean(r.confidentiel) });
    out.set(siren, list);
  }
  return out;
}

/** The accounts of these companies, by SIREN. */
export async function accountsBySiren(db: Knex, sirens: readonly string[]): Promise<Map<string, AccountFields[]>> {
  const out = new Map<string, AccountFields[]>();
  const unique = [...new Set(sirens)];
  for (let i = 0; i < unique.length; i += 500) {
    // Read for every page of company search results: prepared on PostgreSQL (outside a transaction).
    for (const [siren, list] of accountsFromRows(await preparedRows<Record<string, unknown>>(db, accountsQuery(db, unique.slice(i, i + 500))))) out.set(siren, list);
  }
  return out;
}

/** Rewrites the latest-turnover rows (the search's band filter) of these companies from their accounts. */
export async function refreshTurnovers(trx: Knex.Transaction, sirens: readonly string[]): Promise<void> {
  const unique = [...new Set(sirens)];
  const accounts = await accountsBySiren(trx, unique);
  for (let i = 0; i < unique.length; i += 500) await trx('company_turnovers').whereIn('siren', unique.slice(i, i + 500)).delete();
  const rows = [...accounts].flatMap(([siren, list]) => {
    const latest = yearlyAccounts(list)[0];
    return latest ? [{ siren, exercice: latest.exercice, chiffre_affaires: latest.chiffre_affaires }] : [];
  });
  for (let i = 0; i < rows.length; i += 300) await trx('company_turnovers').insert(rows.slice(i, i + 300));
}
