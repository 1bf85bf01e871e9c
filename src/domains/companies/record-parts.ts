// Everything a company's record shows, for one company or a page of them: its unit, head
// office (or establishment), RGE certifications in force, register identity, officers,
// capital, accounts and collective proceedings, read together (`preparedRowsTogether`): one
// prepared statement on PostgreSQL, the selects in turn on SQLite. Read as separate
// statements, each parsed, planned and sent on its own, entreprises.get was 3.9x slower on
// PostgreSQL than on SQLite (2.80 ms CPU per call against 0.68 ms on the demo set).
import type { Database } from '../../platform/db/database.js';
import type { Knex } from 'knex';
import { preparedRowsTogether, preparedRowsTogetherOf } from '../../platform/db/prepared.js';
import { PROCEEDING_FAMILIES } from '../announcements/import-bodacc.js';
import { proceedingsFromRows, proceedingsQuery, type ProceedingView } from '../announcements/store.js';
import { detailsFromRows, detailsQueries, NO_DETAILS, type CompanyDetails } from './details.js';
import { companyViewQueries, companyViewsCompleted, establishmentViewFromRows, establishmentViewQueries, type CompanyView } from './store.js';

/** Proceedings listed on a company's record, newest first. */
export const MAX_PROCEEDINGS = 20;

export interface RecordParts {
  /** Null when the SIREN (or SIRET) is known neither by SIRENE nor by the register. */
  view: CompanyView | null;
  proceedings: ProceedingView[];
  details: CompanyDetails;
}

export interface CompanyPage {
  /** By SIREN; a SIREN known neither by SIRENE nor by the register is absent. */
  views: Map<string, CompanyView>;
  proceedings: Map<string, ProceedingView[]>;
  details: Map<string, CompanyDetails>;
}

/**
 * What the records of these companies show (a page of search results, or the record of one):
 * one statement on PostgreSQL, five on SQLite; a SIREN without head office (no unit
 * imported, or none under `nic_siege`) costs one more statement (two on SQLite).
 */
export async function companyPage(db: Database, sirens: readonly string[], today: string): Promise<CompanyPage> {
  if (!sirens.length) return { views: new Map(), proceedings: new Map(), details: new Map() };
  const [units = [], rge = [], proceedingRows = [], registerDetails = [], accounts = []] = await preparedRowsTogether(db, pageQueries(db, sirens, today));
  return pageFromRows(db, sirens, units, rge, proceedingRows, registerDetails, accounts);
}

/** The selects of a page, for `pageFromRows`. */
function pageQueries(db: Database, sirens: readonly string[], today: string): Knex.QueryBuilder[] {
  return [...companyViewQueries(db, sirens, today), proceedingsQuery(db, sirens, PROCEEDING_FAMILIES, MAX_PROCEEDINGS), ...detailsQueries(db, sirens)];
}

/** The page from the rows of `pageQueries`, the views of SIRENs without head office completed (`companyViewsCompleted`). */
async function pageFromRows(
  db: Database,
  sirens: readonly string[],
  ...[units, rge, proceedingRows, registerDetails, accounts]: Record<string, unknown>[][]
): Promise<CompanyPage> {
  return {
    views: await companyViewsCompleted(db, sirens, units ?? [], rge ?? []),
    proceedings: proceedingsFromRows(sirens, proceedingRows ?? []),
    details: detailsFromRows(registerDetails ?? [], accounts ?? []),
  };
}

const NOTHING: RecordParts = { view: null, proceedings: [], details: NO_DETAILS };

/** The record of this SIREN: a page of one, its selects compiled once. */
export async function recordPartsBySiren(db: Database, siren: string, today: string): Promise<RecordParts> {
  const [units = [], rge = [], proceedingRows = [], registerDetails = [], accounts = []] = await preparedRowsTogetherOf(db, 'record by SIREN', ([s, day]) => pageQueries(db, [s as string], day as string), [siren, today]);
  const page = await pageFromRows(db, [siren], units, rge, proceedingRows, registerDetails, accounts);
  const view = page.views.get(siren);
  return view ? { view, proceedings: page.proceedings.get(siren) ?? [], details: page.details.get(siren) ?? NO_DETAILS } : NOTHING;
}

/** The record of this establishment, its company's proceedings and details read with it. */
export async function recordPartsBySiret(db: Database, siret: string, today: string): Promise<RecordParts> {
  // A SIRET is its SIREN followed by the NIC (the importer stores `siren` so).
  const siren = siret.slice(0, 9);
  const [establishments = [], rge = [], proceedingRows = [], registerDetails = [], accounts = []] = await preparedRowsTogetherOf(
    db,
    'record by SIRET',
    ([t, s, day]) => [...establishmentViewQueries(db, t as string, day as string), proceedingsQuery(db, [s as string], PROCEEDING_FAMILIES, MAX_PROCEEDINGS), ...detailsQueries(db, [s as string])],
    [siret, siren, today],
  );
  const view = establishmentViewFromRows(establishments, rge);
  if (!view) return NOTHING;
  return {
    view,
    proceedings: proceedingsFromRows([siren], proceedingRows).get(siren) ?? [],
    details: detailsFromRows(registerDetails, accounts).get(siren) ?? NO_DETAILS,
  };
}
