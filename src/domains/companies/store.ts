// Reads of the company directory: a company with its head office or one establishment,
// its RGE certifications in force, and searches by words and filters.
import type { Knex } from 'knex';
import type { Database } from '../../platform/db/database.js';
import { preparedRows, preparedRowsTogether } from '../../platform/db/prepared.js';
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
      .orderBy([{ column: 'siege', order: 'desc' }, { column: 'etat', order: 'asc' }, { column: 'siret', order: 'asc' }])
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
    (await db('establishments').where({ siren, siege: true }).first(ESTABLISHMENT_COLUMNS));
  return { company, establishment: toEstablishment(head), rge: await rgeOf(db, { siren }, today) };
}

/**
 * The selects of `companiesBySiren` (one page of companies), for `companyViewsFromRows`:
 * the units with their head offices under `nic_siege` (`siren || nic_siege`, the
 * establishment's key), and the certifications in force of their establishments.
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

/**
 * The views of these companies from the rows of `companyViewQueries`, as `companyBySiren`
 * gives each one (its certifications in no set order). What those rows do not tell is read
 * here: a head office not under `nic_siege` (the one marked as such, one statement for the
 * page), a SIREN without its unit (a provisional row: `companyBySiren`'s own path).
 */
export async function companyViewsFromRows(
  db: Database,
  sirens: readonly string[],
  unitRows: readonly Record<string, unknown>[],
  rgeRows: readonly Record<string, unknown>[],
  today: string,
): Promise<Map<string, CompanyView>> {
  const unique = [...new Set(sirens)];
  const out = new Map<string, CompanyView>();
  const units = new Map<string, CompanyFields>();
  const heads = new Map<string, EstablishmentFields>();
  for (const row of unitRows) {
    if (!row.unit_known) continue;
    const siren = row.siren as string;
    const company: Record<string, unknown> = {};
    for (const c of COMPANY_COLUMNS) if (c !== 'unit_known') company[c] = row[c];
    units.set(siren, company as unknown as CompanyFields);
    if (row.h_siret !== null && row.h_siret !== undefined) {
      const head: Record<string, unknown> = {};
      for (const c of ESTABLISHMENT_COLUMNS) head[c] = row[`h_${c}`];
      heads.set(siren, toEstablishment(head) as EstablishmentFields);
    }
  }
  // No head office under `nic_siege` (none given, or not imported): the one marked as such.
  const headless = unique.filter((s) => units.has(s) && !heads.has(s));
  if (headless.length) {
    const offices = await preparedRows<Record<string, unknown>>(db, db('establishments').whereIn('siren', headless).where({ siege: true }).orderBy('siret').select(ESTABLISHMENT_COLUMNS));
    for (const o of offices) if (!heads.has(o.siren as string)) heads.set(o.siren as string, toEstablishment(o) as EstablishmentFields);
  }
  const rge = new Map<string, RgeFields[]>();
  for (const { company, ...r } of rgeRows as (RgeFields & { company: string })[]) {
    const list = rge.get(company);
    if (list) list.push(r);
    else rge.set(company, [r]);
  }
  for (const siren of unique) {
    const company = units.get(siren);
    if (company) out.set(siren, { company, establishment: heads.get(siren) ?? null, rge: rge.get(siren) ?? [] });
    else {
      const view = await companyBySiren(db, siren, today);
      if (view) out.set(siren, view);
    }
  }
  return out;
}

/**
 * The views of several companies at once, by SIREN, as `companyBySiren` gives each one (the
 * certifications in no set order): a page of search results in one statement on
 * PostgreSQL (`preparedRowsTogether`), two on SQLite, instead of three per company. Every
 * statement costs a round trip on PostgreSQL, and unprepared a parse and a plan there: a
 * page of 10 companies read one by one took 30 statements, 18 ms of the service's CPU and
 * 22 ms of PostgreSQL's per call (demo set, loaded machine).
 */
export async function companiesBySiren(db: Database, sirens: readonly string[], today: string): Promise<Map<string, CompanyView>> {
  if (!sirens.length) return new Map();
  const [units, rge] = await preparedRowsTogether(db, companyViewQueries(db, sirens, today));
  return companyViewsFromRows(db, sirens, units ?? [], rge ?? [], today);
}

export async function companyBySiret(db: Database, siret: string, today: string): Promise<CompanyView | null> {
  const establishment = await db('establishments').where({ siret }).first(ESTABLISHMENT_COLUMNS);
  if (!establishment) return null;
  const company = await unitOf(db, establishment.siren);
  return { company: company ?? null, establishment: toEstablishment(establishment), rge: await rgeOf(db, { siret }, today) };
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
  const found = await searchPage(db, parsed, { index: COMPANIES_SEARCH, base, key: 'c.siren', then: { column: 'c.date_creation', order: 'desc' }, filtered, among }, page);
  return { sirens: found.keys, hasMore: found.hasMore, total: found.total };
}
