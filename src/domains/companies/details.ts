// What the register (RNE) and the published accounts add to a company's record: its
// officers and capital, and its accounts over the years, read for one page of companies at once.
import type { Knex } from 'knex';
import { accountsBySiren, yearlyAccounts, type YearlyAccount } from './finances.js';
import type { Officer } from './import-rne.js';

export interface CompanyDetails {
  capital: number | null;
  officers: Officer[];
  years: YearlyAccount[];
}

export const NO_DETAILS: CompanyDetails = { capital: null, officers: [], years: [] };

/** The details of these companies, by SIREN (a company with neither register nor accounts is absent). */
export async function detailsBySiren(db: Knex, sirens: readonly string[]): Promise<Map<string, CompanyDetails>> {
  const unique = [...new Set(sirens)].filter(Boolean);
  const out = new Map<string, CompanyDetails>();
  if (!unique.length) return out;
  const registers = (await db('company_registers').whereIn('siren', unique).select('siren', 'capital_social_eur', 'officers')) as {
    siren: string;
    capital_social_eur: number | null;
    officers: string;
  }[];
  for (const r of registers) out.set(r.siren, { capital: r.capital_social_eur === null ? null : Number(r.capital_social_eur), officers: JSON.parse(r.officers) as Officer[], years: [] });
  for (const [siren, accounts] of await accountsBySiren(db, unique)) {
    const d = out.get(siren) ?? { ...NO_DETAILS };
    out.set(siren, { ...d, years: yearlyAccounts(accounts) });
  }
  return out;
}
