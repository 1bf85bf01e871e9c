// Reads of BODACC announcements: by id, searches by words and filters, and a company's
// collective proceedings (by SIREN, from the index of announcement_sirens).
import type { Knex } from 'knex';
import type { Database } from '../../platform/db/database.js';
import { preparedRows } from '../../platform/db/prepared.js';
import { ANNOUNCEMENTS_SEARCH } from './search-index.js';
import { searchPage } from '../../platform/search/search-page.js';
import type { ParsedQuery } from '../../platform/search/query-syntax.js';
import type { AnnouncementRow } from './rows.js';

/** An announcement as its record reads it. */
export type AnnouncementView = Omit<AnnouncementRow, 'sirens' | 'details_illisibles' | 'ingested_at' | 'updated_at'> & {
  sirens: string[];
  details_illisibles: string[];
};

const COLUMNS = [
  'id', 'bulletin', 'numero_parution', 'numero_annonce', 'date_parution', 'famille', 'famille_libelle', 'type_avis', 'type_avis_libelle', 'departement',
  'departement_nom', 'ville', 'code_postal', 'tribunal', 'type_personne', 'denomination', 'forme_juridique', 'activite', 'sirens', 'jugement_famille',
  'jugement_nature', 'jugement_date', 'detail', 'details_illisibles',
];

function toView(r: Record<string, unknown>): AnnouncementView {
  return {
    ...(r as unknown as AnnouncementView),
    numero_annonce: r.numero_annonce === null || r.numero_annonce === undefined ? null : Number(r.numero_annonce),
    sirens: JSON.parse(String(r.sirens ?? '[]')) as string[],
    details_illisibles: String(r.details_illisibles ?? '')
      .split(',')
      .filter(Boolean),
  };
}

export async function announcementsByIds(db: Database, ids: string[]): Promise<AnnouncementView[]> {
  if (!ids.length) return [];
  const rows = await preparedRows<Record<string, unknown>>(db, db('announcements').whereIn('id', ids).select(COLUMNS));
  const byId = new Map(rows.map((r) => [r.id as string, toView(r)]));
  return ids.map((id) => byId.get(id)).filter((a): a is AnnouncementView => a !== undefined);
}

export interface AnnouncementFilters {
  familles?: string[];
  departements?: string[];
  from?: string;
  to?: string;
  siren?: string;
}

/** A page of the ids found, by relevance then date of publication (newest first) then id; without words, by date then id. */
export async function searchAnnouncements(
  db: Database,
  parsed: ParsedQuery | null,
  f: AnnouncementFilters,
  page: { offset: number; limit: number; countCap: number },
): Promise<{ ids: string[]; hasMore: boolean; total: number }> {
  const base = db('announcements as a');
  if (f.familles?.length) base.whereIn('a.famille', f.familles);
  if (f.departements?.length) base.whereIn('a.departement', f.departements);
  if (f.from) base.where('a.date_parution', '>=', f.from);
  if (f.to) base.where('a.date_parution', '<=', f.to);
  if (f.siren) base.whereIn('a.id', db('announcement_sirens').select('announcement_id').where('siren', f.siren));
  const filtered = !!f.familles?.length || !!f.departements?.length || !!f.from || !!f.to || !!f.siren;
  const found = await searchPage(db, parsed, { index: ANNOUNCEMENTS_SEARCH, base, key: 'a.id', then: { column: 'a.date_parution', order: 'desc' }, filtered }, page);
  return { ids: found.keys, hasMore: found.hasMore, total: found.total };
}

export interface ProceedingView {
  siren: string;
  id: string;
  date_parution: string;
  famille: string;
  nature: string | null;
  date_jugement: string | null;
  tribunal: string | null;
}

/**
 * The proceedings of these companies (500 at most): the select, for `proceedingsFromRows`.
 * The (siren, date_parution) index finds each company's announcements and a window numbers
 * them newest first, keeping the `max` newest of each: one statement for a page of companies.
 */
export function proceedingsQuery(db: Database, sirens: readonly string[], families: readonly string[], max: number): Knex.QueryBuilder {
  // The same order as the page of one company: date, then announcement, newest first.
  const ranked = db('announcement_sirens as s')
    .join('announcements as a', 'a.id', 's.announcement_id')
    .whereIn('s.siren', [...sirens])
    .whereIn('s.famille', families as string[])
    .select(
      's.siren',
      's.announcement_id as id',
      's.date_parution',
      's.famille',
      'a.jugement_nature',
      'a.jugement_date',
      'a.tribunal',
      // An integer (int4), not row_number's bigint: the same value through JSON (preparedRowsTogether).
      db.raw('cast(row_number() over (partition by s.siren order by s.date_parution desc, s.announcement_id desc) as integer) as n'),
    );
  return db.from(ranked.as('p')).where('p.n', '<=', max).select('p.siren', 'p.id', 'p.date_parution', 'p.famille', 'p.jugement_nature', 'p.jugement_date', 'p.tribunal', 'p.n');
}

/** Each company's proceedings from the rows of `proceedingsQuery`, newest first (an empty list for a company without). */
export function proceedingsFromRows(sirens: readonly string[], rows: readonly Record<string, unknown>[]): Map<string, ProceedingView[]> {
  const out = new Map<string, ProceedingView[]>();
  for (const siren of sirens) out.set(siren, []);
  // In the window's order, whatever order the rows came in.
  const sorted = [...(rows as Record<string, string | number | null>[])].sort((x, y) => Number(x.n) - Number(y.n));
  for (const r of sorted) {
    const list = out.get(r.siren as string);
    if (!list) continue;
    list.push({
      siren: r.siren as string,
      id: r.id as string,
      date_parution: r.date_parution as string,
      famille: r.famille as string,
      nature: (r.jugement_nature as string | null) ?? null,
      date_jugement: (r.jugement_date as string | null) ?? null,
      tribunal: (r.tribunal as string | null) ?? null,
    });
  }
  return out;
}

/**
 * The proceedings published about these companies (newest first, `max` per company at
 * most), by SIREN: one statement per 500 companies (`proceedingsQuery`), prepared on
 * PostgreSQL. Read one company at a time, a page of search results cost a statement per
 * company (a round trip, a parse and a plan each on PostgreSQL).
 */
export async function proceedingsBySiren(db: Database, sirens: string[], families: readonly string[], max: number): Promise<Map<string, ProceedingView[]>> {
  const unique = [...new Set(sirens)];
  const out = new Map<string, ProceedingView[]>();
  for (let i = 0; i < unique.length; i += 500) {
    const chunk = unique.slice(i, i + 500);
    for (const [siren, list] of proceedingsFromRows(chunk, await preparedRows<Record<string, unknown>>(db, proceedingsQuery(db, chunk, families, max)))) out.set(siren, list);
  }
  return out;
}
