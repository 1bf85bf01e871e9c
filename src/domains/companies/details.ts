// What the register (RNE) and the published accounts add to a company's record: its
// officers and capital, and its accounts over the years, read for one page of companies at once.
import type { Knex } from 'knex';
import { preparedRowsTogether } from '../../platform/db/prepared.js';
import { accountsFromRows, accountsQuery, yearlyAccounts, type YearlyAccount } from './finances.js';
import type { Officer } from './import-rne.js';

export interface CompanyDetails {
  capital: number | null;
  officers: Officer[];
  years: YearlyAccount[];
}

export const NO_DETAILS: CompanyDetails = { capital: null, officers: [], years: [] };

/** The selects of `detailsBySiren` (one page of companies), for `detailsFromRows`: the register entries, the accounts. */
export function detailsQueries(db: Knex, sirens: readonly string[]): [Knex.QueryBuilder, Knex.QueryBuilder] {
  const unique = [...new Set(sirens)].filter(Boolean);
  return [db('company_registers').whereIn('siren', unique).select('siren', 'capital_social_eur', 'officers'), accountsQuery(db, unique)];
}

/** The details from the rows of `detailsQueries` (a company with neither register nor accounts is absent). */
export function detailsFromRows(registers: readonly Record<string, unknown>[], accounts: readonly Record<string, unknown>[]): Map<string, CompanyDetails> {
  const out = new Map<string, CompanyDetails>();
  for (const r of registers as { siren: string; capital_social_eur: number | null; officers: string }[])
    out.set(r.siren, { capital: r.capital_social_eur === null ? null : Number(r.capital_social_eur), officers: JSON.parse(r.officers) as Officer[], years: [] });
  for (const [siren, list] of accountsFromRows(accounts)) {
    const d = out.get(siren) ?? { ...NO_DETAILS };
    out.set(siren, { ...d, years: yearlyAccounts(list) });
  }
  return out;
}

/** The details of these companies, by SIREN (a company with neither register nor accounts is absent). */
export async function detailsBySiren(db: Knex, sirens: readonly string[]): Promise<Map<string, CompanyDetails>> {
  const unique = [...new Set(sirens)].filter(Boolean);
  if (!unique.length) return new Map();
  const registers = new Map<string, Record<string, unknown>>();
  const accounts: Record<string, unknown>[] = [];
  for (let i = 0; i < unique.length; i += 500) {
    // A page of search results at every call: one prepared statement on PostgreSQL.
    const [r, a] = await preparedRowsTogether(db, detailsQueries(db, unique.slice(i, i + 500)));
    for (const row of r ?? []) registers.set(row.siren as string, row);
    accounts.push(...(a ?? []));
  }
  return detailsFromRows([...registers.values()], accounts);
}
