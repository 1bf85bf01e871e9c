// The companies' search index, and the documents the importers write into it in the same
// transaction as the records (what is imported is searchable at once).
import type { Knex } from 'knex';
import { kindOf } from '../../platform/db/database.js';
import { NAF_SECTION_F } from '../reference/lists.js';
import { defineSearchIndex, upsertSearchDocuments, type SearchDocument } from '../../platform/search/full-text.js';
import { statement, withSqlite } from '../../platform/db/statements.js';
import { rowsWhereIn } from '../../import/upsert.js';

export const COMPANIES_SEARCH = defineSearchIndex({
  name: 'companies_search',
  columns: [
    { name: 'nom', weight: 'A' },
    { name: 'activite', weight: 'B' },
    { name: 'lieu', weight: 'C' },
  ],
  // PostgreSQL: a search in a department reads the words' matches among the companies with
  // an establishment there (the departments of all their establishments, a superset of the
  // filter's active ones), the two GIN indexes intersected.
  postgresLists: ['departements'],
});

const NAF_LABELS = new Map(NAF_SECTION_F.map((n) => [n.code, n.libelle]));

/** What a company's search document is made of, from its unit. */
export interface CompanyIndexFields {
  siren: string;
  denomination: string | null;
  sigle: string | null;
  nom_personne: string | null;
  denomination_usuelle: string | null;
  activite_principale: string | null;
  nomenclature_activite: string | null;
  activite_principale_naf25: string | null;
  /** False (0 on SQLite) for a provisional row: no SIRENE unit imported (yet). */
  unit_known?: boolean | number;
}

/** What the register (RNE) says of a company's identity: the office of a legal person only. */
interface RegisterFields {
  siren: string;
  denomination: string | null;
  activite_principale: string | null;
  siege_code_postal: string | null;
  siege_commune: string | null;
}

/** What a company's search document takes from each of its establishments. */
interface PlaceFields {
  siren: string;
  siret: string;
  commune: string | null;
  enseigne: string | null;
  code_postal: string | null;
  departement: string | null;
}

/** The columns of `companies` a document is made of (`CompanyIndexFields`). */
export const COMPANY_INDEX_COLUMNS = ['siren', 'denomination', 'sigle', 'nom_personne', 'denomination_usuelle', 'activite_principale', 'nomenclature_activite', 'activite_principale_naf25', 'unit_known'] as const;
const REGISTER_COLUMNS = ['siren', 'denomination', 'activite_principale', 'siege_code_postal', 'siege_commune'] as const;
const PLACE_COLUMNS = ['siren', 'siret', 'commune', 'enseigne', 'code_postal', 'departement'] as const;

/** Adds the words of `value` once (the document keeps the first occurrence of each value). */
function addOnce(parts: string[], seen: Set<string>, value: string | null): void {
  if (value && !seen.has(value)) {
    seen.add(value);
    parts.push(value);
  }
}

/**
 * A company's document: its names and the signs of its establishments, its activity (code
 * and label), and the towns and postal codes of its establishments (in SIRET order); the
 * departments of its establishments, open or closed, as its list (`postgresLists`).
 */
function companyDocument(c: CompanyIndexFields, places: readonly PlaceFields[] | undefined): SearchDocument {
  const names = [c.denomination, c.sigle, c.denomination_usuelle, c.nom_personne].filter((p): p is string => !!p);
  let lieu: string | null = null;
  if (places?.length) {
    const signs = new Set<string>();
    for (const p of places) addOnce(names, signs, p.enseigne);
    const towns: string[] = [];
    const seen = new Set<string>();
    for (const p of places) {
      addOnce(towns, seen, p.commune);
      addOnce(towns, seen, p.code_postal);
    }
    lieu = towns.join(' ') || null;
  }
  // A legacy code (NAP…) gets no NAF label: `22.02` is not NAF's 22.02.
  const nafRev2 = c.nomenclature_activite === null || c.nomenclature_activite === 'NAFRev2';
  const label = c.activite_principale && nafRev2 ? NAF_LABELS.get(c.activite_principale) : undefined;
  const activite = [c.activite_principale, label, c.activite_principale_naf25].filter(Boolean).join(' ');
  return {
    key: c.siren,
    fields: {
      nom: names.join(' ') || null,
      activite: activite || null,
      lieu,
    },
    lists: { departements: (places ?? []).map((p) => p.departement).filter((d): d is string => !!d) },
  };
}

/**
 * The document of a company known by the register alone (a provisional row, no
 * establishment): the register's identity as a SIRENE unit's, its name, its activity and the
 * registered office's town and postcode, which the register gives for a legal person only.
 */
function registerDocument(g: RegisterFields): SearchDocument {
  const label = g.activite_principale ? NAF_LABELS.get(g.activite_principale) : undefined;
  const activite = [g.activite_principale, label].filter(Boolean).join(' ');
  const lieu = [g.siege_commune, g.siege_code_postal].filter(Boolean).join(' ');
  return { key: g.siren, fields: { nom: g.denomination, activite: activite || null, lieu: lieu || null } };
}

/** The establishments of these companies, by SIREN, each list in SIRET order. */
function placesBySiren(rows: readonly PlaceFields[]): Map<string, PlaceFields[]> {
  const bySiren = new Map<string, PlaceFields[]>();
  for (const p of rows) {
    const list = bySiren.get(p.siren);
    if (list) list.push(p);
    else bySiren.set(p.siren, [p]);
  }
  for (const list of bySiren.values()) if (list.length > 1) list.sort((a, b) => (a.siret < b.siret ? -1 : a.siret > b.siret ? 1 : 0));
  return bySiren;
}

/** SIRENs per lookup of establishments on SQLite: one statement, prepared once per connection. */
const SQLITE_LOOKUP = 500;

/**
 * The search documents of these companies, rebuilt from their unit and establishments.
 * `known`: units just written, by SIREN, not read again (a units import); the others are
 * read. A SIREN without a unit has no document (yet: the units import writes it whole, with
 * the establishments already stored); a provisional row without establishments is
 * indexed from the register's identity (RNE). Also what the alert robot matches new
 * companies against: the words their search finds.
 */
export async function companySearchDocuments(trx: Knex, sirens: readonly string[], known?: ReadonlyMap<string, CompanyIndexFields>): Promise<SearchDocument[]> {
  const unique = [...new Set(sirens)];
  const docs: SearchDocument[] = [];
  const byRegister: string[] = [];
  if (!unique.length) return docs;
  if (kindOf(trx) === 'sqlite') {
    await withSqlite(trx, (conn) => {
      const marks = Array.from({ length: SQLITE_LOOKUP }, () => '?').join(', ');
      const companies = statement(conn, `select ${COMPANY_INDEX_COLUMNS.join(', ')} from companies where siren in (${marks})`);
      const places = statement(conn, `select ${PLACE_COLUMNS.join(', ')} from establishments where siren in (${marks})`);
      for (let i = 0; i < unique.length; i += SQLITE_LOOKUP) {
        const chunk = unique.slice(i, i + SQLITE_LOOKUP);
        // A short chunk is padded with its first SIREN: the same statement serves every chunk.
        const padded = chunk.length === SQLITE_LOOKUP ? chunk : [...chunk, ...Array.from({ length: SQLITE_LOOKUP - chunk.length }, () => chunk[0] as string)];
        const toRead = known ? chunk.filter((s) => !known.has(s)) : chunk;
        const read = new Map<string, CompanyIndexFields>();
        if (toRead.length) for (const c of companies.all(...padded) as CompanyIndexFields[]) read.set(c.siren, c);
        const bySiren = placesBySiren(places.all(...padded) as PlaceFields[]);
        for (const siren of chunk) {
          const c = known?.get(siren) ?? read.get(siren);
          if (c && !c.unit_known && !bySiren.has(siren)) byRegister.push(siren);
          else if (c) docs.push(companyDocument(c, bySiren.get(siren)));
        }
      }
    });
  } else {
    // One statement each for the whole call, the SIRENs as one array (`rowsWhereIn`).
    const toRead = known ? unique.filter((s) => !known.has(s)) : unique;
    const read = await rowsWhereIn<CompanyIndexFields>(trx, 'companies', 'siren', toRead, COMPANY_INDEX_COLUMNS);
    const bySirenCompany = new Map(read.map((c) => [c.siren, c]));
    const bySiren = placesBySiren(await rowsWhereIn<PlaceFields>(trx, 'establishments', 'siren', unique, PLACE_COLUMNS));
    for (const siren of unique) {
      const c = known?.get(siren) ?? bySirenCompany.get(siren);
      if (c && !c.unit_known && !bySiren.has(siren)) byRegister.push(siren);
      else if (c) docs.push(companyDocument(c, bySiren.get(siren)));
    }
  }
  // A provisional row without establishments is a company known by the register alone.
  for (const g of await rowsWhereIn<RegisterFields>(trx, 'company_registers', 'siren', byRegister, REGISTER_COLUMNS)) docs.push(registerDocument(g));
  return docs;
}

/**
 * Rebuilds the search documents of these companies (see `companySearchDocuments`). All the
 * documents of the call are indexed at once (give it a whole batch).
 */
export async function reindexCompanies(trx: Knex.Transaction, sirens: readonly string[], known?: ReadonlyMap<string, CompanyIndexFields>): Promise<void> {
  const docs = await companySearchDocuments(trx, sirens, known);
  await upsertSearchDocuments(trx, COMPANIES_SEARCH, docs);
}
