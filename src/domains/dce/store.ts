// Reads of consultation files: a file by the notice it belongs to (marche_id or annonce_id)
// or by its own id, its pieces, a piece's reading page, the pages citing terms.
import type { Knex } from 'knex';
import type { Database } from '../../platform/db/database.js';
import type { ParsedQuery } from '../../platform/search/query-syntax.js';
import { searchPage } from '../../platform/search/search-page.js';
import { DCE_SEARCH } from './search-index.js';

export interface DceFile {
  id: string;
  marcheId: string | null;
  annonceId: string | null;
  version: number;
  updatedAt: string;
  titre: string | null;
  acheteur: string | null;
  departements: string[];
}

export interface DcePieceRow {
  position: number;
  filename: string;
  doc_type: string;
  lot: number | null;
  content_type: string;
  size: number;
  object_key: string;
  source_pages: number;
  scanned_pages: number;
  reading_pages: number;
}

/**
 * The notice of a file: the one it was matched to at import, else the one carrying its
 * annonce_id (a file attached before its notice was imported finds it when it arrives).
 */
function joinNotice(db: Database, query: Knex.QueryBuilder): Knex.QueryBuilder {
  return query.leftJoin('notices as n', (j) => j.on('n.marche_id', 'f.marche_id').orOn((o) => o.onNull('f.marche_id').andOn('n.annonce_id', 'f.annonce_id')));
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The file of a notice (its marche_id or annonce_id), or a file without notice by its own id. */
export async function dceFileOf(db: Database, given: string): Promise<DceFile | null> {
  const id = given.trim();
  const query = joinNotice(db, db('dce_files as f'));
  if (UUID.test(id)) {
    const lower = id.toLowerCase();
    query.where((w) => w.where('n.marche_id', lower).orWhere((o) => o.where('f.id', lower).whereNull('n.marche_id')));
  } else {
    query.where((w) => w.where('f.annonce_id', id).orWhere('n.annonce_id', id));
  }
  const row = (await query.first('f.id', 'n.marche_id', 'f.annonce_id', 'f.version', 'f.updated_at', 'n.objet', 'n.acheteur_nom', 'n.departements')) as
    | { id: string; marche_id: string | null; annonce_id: string | null; version: number; updated_at: string; objet: string | null; acheteur_nom: string | null; departements: string | null }
    | undefined;
  if (!row) return null;
  return {
    id: row.id,
    marcheId: row.marche_id,
    annonceId: row.annonce_id,
    version: Number(row.version),
    updatedAt: row.updated_at,
    titre: row.objet ?? null,
    acheteur: row.acheteur_nom ?? null,
    departements: row.departements ? (JSON.parse(row.departements) as string[]) : [],
  };
}

export async function piecesOf(db: Database, dceId: string): Promise<DcePieceRow[]> {
  const rows = (await db('dce_pieces')
    .where('dce_id', dceId)
    .orderBy('position')
    .select('position', 'filename', 'doc_type', 'lot', 'content_type', 'size', 'object_key', 'source_pages', 'scanned_pages', 'reading_pages')) as Record<string, unknown>[];
  return rows.map((r) => ({
    position: Number(r.position),
    filename: String(r.filename),
    doc_type: String(r.doc_type),
    lot: r.lot === null ? null : Number(r.lot),
    content_type: String(r.content_type),
    size: Number(r.size),
    object_key: String(r.object_key),
    source_pages: Number(r.source_pages),
    scanned_pages: Number(r.scanned_pages),
    reading_pages: Number(r.reading_pages),
  }));
}

export async function readingPage(db: Database, dceId: string, position: number, page: number): Promise<string | null> {
  const row = (await db('dce_pages').where({ dce_id: dceId, position, page }).first('text')) as { text: string } | undefined;
  return row?.text ?? null;
}

/** Every reading page of a file, for locating terms in it (a file is a few megabytes at most). */
export async function pagesOf(db: Database, dceId: string): Promise<{ position: number; page: number; text: string }[]> {
  const rows = (await db('dce_pages').where('dce_id', dceId).orderBy(['position', 'page']).select('position', 'page', 'text')) as { position: number; page: number; text: string }[];
  return rows.map((r) => ({ position: Number(r.position), page: Number(r.page), text: r.text }));
}

export interface DceSearchFilters {
  departements: string[];
  from?: string;
  to?: string;
}

export interface DcePageHit {
  key: string;
  dceId: string;
  marcheId: string | null;
  position: number;
  page: number;
  filename: string;
  docType: string;
  text: string;
  titre: string | null;
  acheteur: string | null;
  departements: string[];
}

/** Reading pages citing the terms, best first then the newest notice, with their file and notice. */
export async function searchDcePages(
  db: Database,
  parsed: ParsedQuery,
  f: DceSearchFilters,
  page: { offset: number; limit: number; countCap: number },
): Promise<{ hits: DcePageHit[]; hasMore: boolean; total: number }> {
  const base = joinNotice(db, db('dce_pages as p').join('dce_files as f', 'f.id', 'p.dce_id'));
  // A department keeps only files matched to a located notice (the spec's dce source rule).
  if (f.departements.length) base.whereExists(db('notice_departements as d').select(db.raw('1')).whereRaw('d.marche_id = n.marche_id').whereIn('d.departement', f.departements));
  if (f.from) base.where('n.date_parution', '>=', f.from);
  if (f.to) base.where('n.date_parution', '<=', f.to);
  const filtered = f.departements.length > 0 || !!f.from || !!f.to;
  const found = await searchPage(db, parsed, { index: DCE_SEARCH, base, key: 'p.search_key', then: { column: 'n.date_parution', order: 'desc' }, filtered }, page);
  if (!found.keys.length) return { hits: [], hasMore: false, total: found.total };
  const rows = (await joinNotice(db, db('dce_pages as p').join('dce_files as f', 'f.id', 'p.dce_id').join('dce_pieces as c', (j) => j.on('c.dce_id', 'p.dce_id').andOn('c.position', 'p.position')))
    .whereIn('p.search_key', found.keys)
    .select('p.search_key', 'p.dce_id', 'n.marche_id', 'p.position', 'p.page', 'p.text', 'c.filename', 'c.doc_type', 'n.objet', 'n.acheteur_nom', 'n.departements')) as Record<string, unknown>[];
  const byKey = new Map(
    rows.map((r) => [
      String(r.search_key),
      {
        key: String(r.search_key),
        dceId: String(r.dce_id),
        marcheId: (r.marche_id as string | null) ?? null,
        position: Number(r.position),
        page: Number(r.page),
        filename: String(r.filename),
        docType: String(r.doc_type),
        text: String(r.text),
        titre: (r.objet as string | null) ?? null,
        acheteur: (r.acheteur_nom as string | null) ?? null,
        departements: r.departements ? (JSON.parse(String(r.departements)) as string[]) : [],
      },
    ]),
  );
  return { hits: found.keys.map((k) => byKey.get(k)).filter((h): h is DcePageHit => h !== undefined), hasMore: found.hasMore, total: found.total };
}
