// Reads of the company directory: a company with its head office or one establishment,
// its RGE certifications in force, and searches by words and filters.
import type { Knex } from 'knex';
import type { Database } from '../../platform/db/database.js';
import { preparedRowsTogether, preparedRowsTogetherOf } from '../../platform/db/prepared.js';
import { COMPANIES_SEARCH } from './search-index.js';
import { searchPage } from '../../platform/search/search-page.js';
import type { ParsedQuery } from '../../platform/search/query-syntax.js';
import { foldText } from '../../platform/search/text-fold.js';
import type { CompanyFields, EstablishmentFields, RgeFields } from './rows.js';




export interface CompanyView {
  /** Null when the establishments were imported without their legal unit (yet). */
  company: CompanyFields | null;
  /** The head office, or the establishment asked for. */
  establishment: EstablishmentFields | null;
  /** Certifications in force today: of the establishment asked for, else of every establishment. */
  rge: RgeFields[];
  /** The register's identity (RNE), for a company neither SIRENE unit nor establishment tells. */
  register?: RegisterIdentity | null;
}

/** What the register (RNE) says of a company's identity; the office of a legal person only. */
export interface RegisterIdentity {
  siren: string;
  denomination: string | null;
  categorie_juridique: string | null;
  activite_principale: string | null;
  siege_code_postal: string | null;
  siege_commune: string | null;
}

const COMPANY_COLUMNS = [
  'siren',
  'denomination',
  'sigle',
  'nom_personne',
  'denomination_usuelle',
  'categorie_juridique',
  'activite_principale',
  'nomenclature_activite',
  'activite_principale_naf25',
  'tranche_effectifs',
  'categorie_entreprise',
  'date_creation',
  'etat',
  'nic_siege',
  'unit_known',
];
const ESTABLISHMENT_COLUMNS = [
  'siret',
  'siren',
  'siege',
  'etat',
  'date_creation',
  'activite_principale',
  'nomenclature_activite',
  'activite_principale_naf25',
  'enseigne',
  'adresse',
  'code_postal',
  'commune',
  'departement',
];

const toEstablishment = (r: Record<string, unknown> | undefined): EstablishmentFields | null => (r ? ({ ...r, siege: Boolean(r.siege) } as EstablishmentFields) : null);

/** Certifications in force on `today` (YYYY-MM-DD). */
function inForce(query: Knex.QueryBuilder, today: string): Knex.QueryBuilder {
  return query.where((w) => w.whereNull('r.date_fin').orWhere('r.date_fin', '>=', today)).andWhere((w) => w.whereNull('r.date_debut').orWhere('r.date_debut', '<=', today));
}

/**
 * Which establishment speaks for a company whose head office is not under `nic_siege`: the
 * one flagged head office, else (without a unit) an open one, else the first; an open one
 * first too among several flagged.
 */
const HEAD_ORDER: { column: string; order: 'asc' | 'desc' }[] = [
  { column: 'siege', order: 'desc' },
  { column: 'etat', order: 'asc' },
  { column: 'siret', order: 'asc' },
];

/** Certifications by domain, then by establishment (so that equal domains fall alike in every read). */
const RGE_ORDER = ['r.domaine', 'r.siret'];

async function rgeOf(db: Database, where: { siret?: string; siren?: string }, today: string): Promise<RgeFields[]> {
  const q = db('rge_certifications as r').select('r.siret', 'r.domaine', 'r.date_debut', 'r.date_fin');
  if (where.siret) q.where('r.siret', where.siret);
  else q.join('establishments as e', 'e.siret', 'r.siret').where('e.siren', where.siren as string);
  return inForce(q, today).orderBy(RGE_ORDER);
}

/** The legal unit of this SIREN, undefined when it is not imported (no row, or a provisional one). */
async function unitOf(db: Database, siren: string): Promise<CompanyFields | undefined> {
  const row = (await db('companies').where({ siren }).first(COMPANY_COLUMNS)) as (CompanyFields & { unit_known: unknown }) | undefined;
  if (!row || !row.unit_known) return undefined;
  const { unit_known: _known, ...company } = row;
  return company;
}

export async function companyBySiren(db: Database, siren: string, today: string): Promise<CompanyView | null> {
  const company = await unitOf(db, siren);
  if (!company) {
    // Establishments without their unit (imported first, or alone): what they tell, from the
    // head office, else an open establishment, else the first.
    const known = await db('establishments')
      .where({ siren })
      .orderBy(HEAD_ORDER)
      .first(ESTABLISHMENT_COLUMNS);
    if (known) return { company: null, establishment: toEstablishment(known), rge: await rgeOf(db, { siren }, today) };
    // Known by the register alone (not in the SIRENE stock imported, or never): its own identity.
    const register = (await db('company_registers')
      .where({ siren })
      .first('siren', 'denomination', 'categorie_juridique', 'activite_principale', 'siege_code_postal', 'siege_commune')) as RegisterIdentity | undefined;
    return register ? { company: null, establishment: null, rge: [], register } : null;
  }
  const head =
    (company.nic_siege ? await db('establishments').where({ siret: `${siren}${company.nic_siege}` }).first(ESTABLISHMENT_COLUMNS) : undefined) ??
    (await db('establishments').where({ siren, siege: true }).orderBy(HEAD_ORDER).first(ESTABLISHMENT_COLUMNS));
  return { company, establishment: toEstablishment(head), rge: await rgeOf(db, { siren }, today) };
}

const REGISTER_IDENTITY = ['siren', 'denomination', 'categorie_juridique', 'activite_principale', 'siege_code_postal', 'siege_commune'];

/**
 * The selects of a page of companies, for `companyViewsFromRows`: the units with their head
 * offices under `nic_siege` (`siren || nic_siege`, the establishment's key), and the
 * certifications in force of their establishments. The SIRENs these rows leave without a
 * head office (`sirensWithoutHead`) are read by `headlessViewQueries`.
 */
export function companyViewQueries(db: Database, sirens: readonly string[], today: string): [Knex.QueryBuilder, Knex.QueryBuilder] {
  const unique = [...new Set(sirens)];
  return [
    db('companies as c')
      .leftJoin('establishments as h', 'h.siret', db.raw('c.siren || c.nic_siege'))
      .whereIn('c.siren', unique)
      .select([...COMPANY_COLUMNS.map((c) => `c.${c}`), ...ESTABLISHMENT_COLUMNS.map((c) => `h.${c} as h_${c}`)]),
    inForce(db('rge_certifications as r').join('establishments as e', 'e.siret', 'r.siret').whereIn('e.siren', unique).select('e.siren as company', 'r.siret', 'r.domaine', 'r.date_debut', 'r.date_fin'), today),
  ];
}

/** The SIRENs whose unit and head office the rows of `companyViewQueries` do not give: no unit imported (or no row), or no head office under `nic_siege`. */
function sirensWithoutHead(sirens: readonly string[], unitRows: readonly Record<string, unknown>[]): string[] {
  const headed = new Set(unitRows.filter((r) => r.unit_known && r.h_siret !== null && r.h_siret !== undefined).map((r) => r.siren as string));
  return [...new Set(sirens)].filter((s) => !headed.has(s));
}

/**
 * The selects that complete the views of SIRENs without head office (rare: the demo set
 * holds none): the establishment that speaks for each (HEAD_ORDER, among those flagged head
 * office when the unit is known), and for a SIREN without unit, the register's identity.
 * Read only when needed, so that a page of companies with their head offices pays nothing.
 */
function headlessViewQueries(db: Database, sirens: readonly string[]): [Knex.QueryBuilder, Knex.QueryBuilder] {
  const unique = [...new Set(sirens)];
  const unit = (siren: string) => db('companies as c').select(db.raw('1')).whereRaw(`c.siren = ${siren}`).where('c.unit_known', true);
  // The SIRENs as rows, each one's establishment looked for alone (a `companies` row may lack).
  const keys = db.raw(`(${unique.map(() => 'select cast(? as text) as siren').join(' union all ')}) as k`, unique);
  const first = db('establishments as f')
    .select('f.siret')
    .whereRaw('f.siren = k.siren')
    .where((w) => w.where('f.siege', true).orWhereNotExists(unit('k.siren')))
    .orderBy(HEAD_ORDER.map((o) => ({ ...o, column: `f.${o.column}` })))
    .limit(1);
  return [
    db('establishments as e')
      .whereIn('e.siret', db.from(keys).select(first.as('siret')))
      .select(ESTABLISHMENT_COLUMNS.map((c) => `e.${c}`)),
    db('company_registers as g')
      .whereIn('g.siren', unique)
      .whereNotExists(unit('g.siren'))
      .select(REGISTER_IDENTITY.map((c) => `g.${c}`)),
  ];
}

/** A unit from a row of `companies` (`prefix` before each column), undefined when not imported (a provisional row, or none). */
function unitFromRow(row: Record<string, unknown>, prefix = ''): CompanyFields | undefined {
  if (!row[`${prefix}unit_known`]) return undefined;
  const company: Record<string, unknown> = {};
  for (const c of COMPANY_COLUMNS) if (c !== 'unit_known') company[c] = row[`${prefix}${c}`];
  return company as unknown as CompanyFields;
}

/**
 * The views of these companies from the rows of `companyViewQueries` and, for the SIRENs
 * without head office, of `headlessViewQueries`, each as
 * `companyBySiren` gives it (its certifications in no set order); a SIREN known neither by
 * SIRENE nor by the register is absent.
 */
export function companyViewsFromRows(
  sirens: readonly string[],
  unitRows: readonly Record<string, unknown>[],
  rgeRows: readonly Record<string, unknown>[],
  firstRows: readonly Record<string, unknown>[],
  registerRows: readonly Record<string, unknown>[],
): Map<string, CompanyView> {
  const out = new Map<string, CompanyView>();
  const units = new Map<string, CompanyFields>();
  const heads = new Map<string, EstablishmentFields>();
  for (const row of unitRows) {
    const company = unitFromRow(row);
    if (!company) continue;
    units.set(company.siren, company);
    if (row.h_siret !== null && row.h_siret !== undefined) {
      const head: Record<string, unknown> = {};
      for (const c of ESTABLISHMENT_COLUMNS) head[c] = row[`h_${c}`];
      heads.set(company.siren, toEstablishment(head) as EstablishmentFields);
    }
  }
  for (const row of firstRows) heads.set(row.siren as string, toEstablishment(row) as EstablishmentFields);
  const registers = new Map(registerRows.map((r) => [r.siren as string, r as unknown as RegisterIdentity]));
  const rge = new Map<string, RgeFields[]>();
  for (const { company, ...r } of rgeRows as (RgeFields & { company: string })[]) {
    const list = rge.get(company);
    if (list) list.push(r);
    else rge.set(company, [r]);
  }
  for (const siren of new Set(sirens)) {
    const company = units.get(siren) ?? null;
    const establishment = heads.get(siren) ?? null;
    const register = registers.get(siren);
    if (company || establishment) out.set(siren, { company, establishment, rge: rge.get(siren) ?? [] });
    // Known by the register alone: its own identity.
    else if (register) out.set(siren, { company: null, establishment: null, rge: [], register });
  }
  return out;
}

/**
 * The views of several companies at once, by SIREN, as `companyBySiren` gives each one (the
 * certifications in no set order): a page of search results in one statement on
 * PostgreSQL (`preparedRowsTogether`), two on SQLite, instead of three per company (and
 * one more, or two, for the SIRENs without head office). Every
 * statement costs a round trip on PostgreSQL, and unprepared a parse and a plan there: a
 * page of 10 companies read one by one took 30 statements, 18 ms of the service's CPU and
 * 22 ms of PostgreSQL's per call (demo set, loaded machine).
 */
export async function companiesBySiren(db: Database, sirens: readonly string[], today: string): Promise<Map<string, CompanyView>> {
  if (!sirens.length) return new Map();
  const [units = [], rge = []] = await preparedRowsTogether(db, companyViewQueries(db, sirens, today));
  return companyViewsCompleted(db, sirens, units, rge);
}

/**
 * The views from the rows of `companyViewQueries`, the SIRENs they leave without head office
 * read then (`headlessViewQueries`, compiled once per number of them: `sirensWithoutHead`
 * gives each once).
 */
export async function companyViewsCompleted(
  db: Database,
  sirens: readonly string[],
  units: readonly Record<string, unknown>[],
  rge: readonly Record<string, unknown>[],
): Promise<Map<string, CompanyView>> {
  const headless = sirensWithoutHead(sirens, units);
  const [firsts = [], registers = []] = headless.length ? await preparedRowsTogetherOf(db, `without head office, ${headless.length}`, (keys) => headlessViewQueries(db, keys), headless) : [];
  return companyViewsFromRows(sirens, units, rge, firsts, registers);
}

/** The establishment's view by separate reads (the reference `establishmentViewQueries` answers as). */
export async function companyBySiret(db: Database, siret: string, today: string): Promise<CompanyView | null> {
  const establishment = await db('establishments').where({ siret }).first(ESTABLISHMENT_COLUMNS);
  if (!establishment) return null;
  const company = await unitOf(db, establishment.siren);
  return { company: company ?? null, establishment: toEstablishment(establishment), rge: await rgeOf(db, { siret }, today) };
}

/** The selects of an establishment's view, for `establishmentViewFromRows`: the establishment with its company's row, its certifications in force. */
export function establishmentViewQueries(db: Database, siret: string, today: string): [Knex.QueryBuilder, Knex.QueryBuilder] {
  return [
    db('establishments as e')
      .leftJoin('companies as c', 'c.siren', 'e.siren')
      .where('e.siret', siret)
      .select([...ESTABLISHMENT_COLUMNS.map((c) => `e.${c}`), ...COMPANY_COLUMNS.map((c) => `c.${c} as c_${c}`)]),
    inForce(db('rge_certifications as r').where('r.siret', siret).select('r.siret', 'r.domaine', 'r.date_debut', 'r.date_fin'), today),
  ];
}

/** The establishment's view from the rows of `establishmentViewQueries`, as `companyBySiret` gives it (its certifications in no set order). */
export function establishmentViewFromRows(rows: readonly Record<string, unknown>[], rgeRows: readonly Record<string, unknown>[]): CompanyView | null {
  const [row] = rows;
  if (!row) return null;
  const establishment: Record<string, unknown> = {};
  for (const c of ESTABLISHMENT_COLUMNS) establishment[c] = row[c];
  return { company: unitFromRow(row, 'c_') ?? null, establishment: toEstablishment(establishment), rge: rgeRows as unknown as RgeFields[] };
}

export interface CompanyFilters {
  naf?: string[];
  dept?: string;
  rge?: boolean;
  /** Folded words of an RGE domain. */
  domaineRge?: string;
  effectif?: string[];
  actives: boolean;
  /** Band of the latest published turnover (euros); confidential accounts never match. */
  caMin?: number;
  caMax?: number;
  /** True: the register gives at least one officer; false: none known. */
  officersKnown?: boolean;
}

/** The RGE domains in force whose folded text holds every word asked for. */
async function matchingDomains(db: Database, words: string, today: string): Promise<string[]> {
  const wanted = foldText(words).split(' ').filter(Boolean);
  const domains = await inForce(db('rge_certifications as r').distinct('r.domaine'), today);
  return (domains as { domaine: string }[]).map((d) => d.domaine).filter((d) => wanted.every((w) => foldText(d).includes(w)));
}

/**
 * Companies matching the words (when given) and the filters, best first then newest, one
 * page plus one more row (to know whether another page exists), and a capped count.
 */
export async function searchCompanies(
  db: Database,
  parsed: ParsedQuery | null,
  filters: CompanyFilters,
  page: { offset: number; limit: number; countCap: number },
  today: string,
): Promise<{ sirens: string[]; hasMore: boolean; total: number }> {
  const base = db('companies as c');
  if (filters.actives) base.where('c.etat', 'A');
  if (filters.naf?.length) {
    base.where((w) => {
      for (const code of filters.naf ?? []) {
        if (/^\d{2}\.\d{2}[A-Z]$/.test(code)) w.orWhere('c.activite_principale', code);
        else w.orWhere('c.activite_principale', 'like', `${code}%`);
      }
    });
    // A NAF filter never matches a legacy code (NAP `22.02` would match `22`).
    base.where((w) => w.whereNull('c.nomenclature_activite').orWhere('c.nomenclature_activite', 'NAFRev2'));
  }
  if (filters.effectif?.length) base.whereIn('c.tranche_effectifs', filters.effectif);
  if (filters.dept) {
    base.whereExists(db('establishments as e').select(db.raw('1')).whereRaw('e.siren = c.siren').andWhere('e.departement', filters.dept).andWhere('e.etat', 'A'));
  }
  if (filters.rge || filters.domaineRge) {
    const domains = filters.domaineRge ? await matchingDomains(db, filters.domaineRge, today) : null;
    if (domains && !domains.length) return { sirens: [], hasMore: false, total: 0 };
    const certified = inForce(db('establishments as e').join('rge_certifications as r', 'r.siret', 'e.siret').select(db.raw('1')).whereRaw('e.siren = c.siren'), today);
    if (domains) certified.whereIn('r.domaine', domains);
    base.whereExists(certified);
  }
  if (filters.caMin !== undefined || filters.caMax !== undefined) {
    const band = db('company_turnovers as t').select(db.raw('1')).whereRaw('t.siren = c.siren').whereNotNull('t.chiffre_affaires');
    if (filters.caMin !== undefined) band.where('t.chiffre_affaires', '>=', filters.caMin);
    if (filters.caMax !== undefined) band.where('t.chiffre_affaires', '<=', filters.caMax);
    base.whereExists(band);
  }
  if (filters.officersKnown !== undefined) {
    const known = db('company_registers as g').select(db.raw('1')).whereRaw('g.siren = c.siren').where('g.officers_count', '>', 0);
    if (filters.officersKnown) base.whereExists(known);
    else base.whereNotExists(known);
  }
  const filtered = filters.caMin !== undefined || filters.caMax !== undefined || filters.officersKnown !== undefined || filters.actives || !!filters.naf?.length || !!filters.effectif?.length || !!filters.dept || !!filters.rge || !!filters.domaineRge;
  // A department lists its companies with an active establishment there (every company the
  // filter lets through): broad words are matched among them rather than each match checked.
  const among = filters.dept ? db('establishments as e').select('e.siren').where('e.departement', filters.dept).andWhere('e.etat', 'A') : undefined;
  // PostgreSQL: the matches read among the documents listing the department (the filter stays in `base`).
  const narrow = filters.dept ? { departements: [filters.dept] } : undefined;
  const found = await searchPage(db, parsed, { index: COMPANIES_SEARCH, base, key: 'c.siren', then: { column: 'c.date_creation', order: 'desc' }, filtered, among, narrow }, page);
  return { sirens: found.keys, hasMore: found.hasMore, total: found.total };
}
