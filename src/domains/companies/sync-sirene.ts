// The SIRENE directory's daily changes from the INSEE's API Sirene 3.11: the legal units
// (`/siren`) and then the establishments (`/siret`) whose last processing date
// (`dateDernierTraitementUniteLegale`, `…Etablissement`) falls on each day, 1,000 a page, paged
// by cursor (`curseur=*`, then `header.curseurSuivant` until it comes back unchanged: paging by
// offset stops at 10,000, below a day's volume). A day without any change answers 404. The API
// allows 30 requests a minute per key (`X-INSEE-Api-Key-Integration`). Each record is turned into
// the row of the monthly stock file (StockUniteLegale / StockEtablissement) and goes through the
// SIRENE importers, as an imported stock row's.
import type { Connector, SyncContext, SyncPage } from '../../sync/connector.js';
import type { Importer } from '../../import/importer.js';
import { addDays, isDay } from '../../sync/days.js';
import { SyncHttpError } from '../../sync/http.js';
import { parisDay } from '../../platform/paris-time.js';
import { sireneEtablissements, sireneUnites } from './import-sirene.js';

/** Records per page (the API's largest `nombre`). */
export const SIRENE_PAGE_SIZE = 1000;

/** The columns of StockUniteLegale (current layout), as the importer reads them. */
export const STOCK_UNITE_LEGALE_COLUMNS = [
  'siren',
  'statutDiffusionUniteLegale',
  'unitePurgeeUniteLegale',
  'dateCreationUniteLegale',
  'sigleUniteLegale',
  'sexeUniteLegale',
  'prenom1UniteLegale',
  'prenom2UniteLegale',
  'prenom3UniteLegale',
  'prenom4UniteLegale',
  'prenomUsuelUniteLegale',
  'pseudonymeUniteLegale',
  'identifiantAssociationUniteLegale',
  'trancheEffectifsUniteLegale',
  'anneeEffectifsUniteLegale',
  'dateDernierTraitementUniteLegale',
  'nombrePeriodesUniteLegale',
  'categorieEntreprise',
  'anneeCategorieEntreprise',
  'dateDebut',
  'etatAdministratifUniteLegale',
  'nomUniteLegale',
  'nomUsageUniteLegale',
  'denominationUniteLegale',
  'denominationUsuelle1UniteLegale',
  'denominationUsuelle2UniteLegale',
  'denominationUsuelle3UniteLegale',
  'categorieJuridiqueUniteLegale',
  'activitePrincipaleUniteLegale',
  'nomenclatureActivitePrincipaleUniteLegale',
  'nicSiegeUniteLegale',
  'economieSocialeSolidaireUniteLegale',
  'societeMissionUniteLegale',
  'caractereEmployeurUniteLegale',
  'activitePrincipaleNAF25UniteLegale',
] as const;

/**
 * The columns of StockEtablissement (current layout) but its second address
 * (`…2Etablissement`), which the importer does not read.
 */
export const STOCK_ETABLISSEMENT_COLUMNS = [
  'siren',
  'nic',
  'siret',
  'statutDiffusionEtablissement',
  'dateCreationEtablissement',
  'trancheEffectifsEtablissement',
  'anneeEffectifsEtablissement',
  'activitePrincipaleRegistreMetiersEtablissement',
  'dateDernierTraitementEtablissement',
  'etablissementSiege',
  'nombrePeriodesEtablissement',
  'complementAdresseEtablissement',
  'numeroVoieEtablissement',
  'indiceRepetitionEtablissement',
  'dernierNumeroVoieEtablissement',
  'indiceRepetitionDernierNumeroVoieEtablissement',
  'typeVoieEtablissement',
  'libelleVoieEtablissement',
  'codePostalEtablissement',
  'libelleCommuneEtablissement',
  'libelleCommuneEtrangerEtablissement',
  'distributionSpecialeEtablissement',
  'codeCommuneEtablissement',
  'codeCedexEtablissement',
  'libelleCedexEtablissement',
  'codePaysEtrangerEtablissement',
  'libellePaysEtrangerEtablissement',
  'identifiantAdresseEtablissement',
  'coordonneeLambertAbscisseEtablissement',
  'coordonneeLambertOrdonneeEtablissement',
  'dateDebut',
  'etatAdministratifEtablissement',
  'enseigne1Etablissement',
  'enseigne2Etablissement',
  'enseigne3Etablissement',
  'denominationUsuelleEtablissement',
  'activitePrincipaleEtablissement',
  'nomenclatureActivitePrincipaleEtablissement',
  'caractereEmployeurEtablissement',
  'activitePrincipaleNAF25Etablissement',
] as const;

type Json = Record<string, unknown>;
export type StockRow = Record<string, string>;

const obj = (v: unknown): Json | null => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : null);

/** A JSON value as the stock file writes it: empty for null, `true`/`false`, numbers in full. */
function cell(v: unknown): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  return '';
}

/** The API writes processing instants with milliseconds (`…T05:25:38.000`), the stock without: one form, so that versions compare. */
const processingInstant = (v: string) => v.replace(/^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})\.\d+$/, '$1');

/** The period in force (`dateFin` null); the API lists the newest first. */
function currentPeriod(periods: unknown): Json {
  if (!Array.isArray(periods)) return {};
  const list = periods.map(obj).filter((p): p is Json => p !== null);
  return list.find((p) => p.dateFin === null || p.dateFin === undefined) ?? list[0] ?? {};
}

function flatten(columns: readonly string[], sources: Json[]): StockRow {
  const row: StockRow = {};
  for (const column of columns) {
    const source = sources.find((s) => Object.prototype.hasOwnProperty.call(s, column));
    row[column] = cell(source?.[column]);
  }
  return row;
}

/** A legal unit of the API (`unitesLegales[]`) as its StockUniteLegale row: its own fields and those of its current period. */
export function unitToStockRow(unit: unknown): StockRow {
  const u = obj(unit) ?? {};
  const row = flatten(STOCK_UNITE_LEGALE_COLUMNS, [currentPeriod(u.periodesUniteLegale), u]);
  row.dateDernierTraitementUniteLegale = processingInstant(row.dateDernierTraitementUniteLegale ?? '');
  return row;
}

/** An establishment of the API (`etablissements[]`) as its StockEtablissement row: its fields, its address, its current period. */
export function establishmentToStockRow(establishment: unknown): StockRow {
  const e = obj(establishment) ?? {};
  const row = flatten(STOCK_ETABLISSEMENT_COLUMNS, [currentPeriod(e.periodesEtablissement), obj(e.adresseEtablissement) ?? {}, e]);
  row.dateDernierTraitementEtablissement = processingInstant(row.dateDernierTraitementEtablissement ?? '');
  return row;
}

type Phase = 'unites' | 'etablissements';

const PHASES: Record<Phase, { path: string; field: string; list: string; importer: string; convert: (r: unknown) => StockRow }> = {
  unites: { path: 'siren', field: 'dateDernierTraitementUniteLegale', list: 'unitesLegales', importer: 'sirene-unites', convert: unitToStockRow },
  etablissements: { path: 'siret', field: 'dateDernierTraitementEtablissement', list: 'etablissements', importer: 'sirene-etablissements', convert: establishmentToStockRow },
};
const ORDER: Phase[] = ['unites', 'etablissements'];

export interface SireneCursor {
  /** The last day read to its end; a scheduled run reads it again (records the API loads late). */
  done: string | null;
  /** The next day of the pass in progress (a run stopped between two days resumes there); null once a pass ends. */
  next: string | null;
  /** The day being read, the phase and the API's cursor of its next page. */
  day: string | null;
  phase: Phase | null;
  curseur: string | null;
}

function readCursor(value: unknown): SireneCursor {
  const c = (obj(value) ?? {}) as Partial<Record<keyof SireneCursor, unknown>>;
  const day = (v: unknown) => (typeof v === 'string' && isDay(v) ? v : null);
  const phase = c.phase === 'unites' || c.phase === 'etablissements' ? c.phase : null;
  return { done: day(c.done), next: day(c.next), day: day(c.day), phase, curseur: typeof c.curseur === 'string' && c.curseur ? c.curseur : null };
}

interface SireneAnswer {
  header?: { statut?: unknown; curseur?: unknown; curseurSuivant?: unknown; total?: unknown };
  [list: string]: unknown;
}

/** One page of a day's phase from `curseur`; `next` null once the phase is read to its end. */
async function fetchPage(ctx: SyncContext, key: string, phase: Phase, day: string, curseur: string): Promise<{ records: unknown[]; next: string | null }> {
  const p = PHASES[phase];
  const params = new URLSearchParams({ q: `${p.field}:[${day}T00:00:00 TO ${day}T23:59:59]`, nombre: String(SIRENE_PAGE_SIZE), curseur });
  const { status, body } = await ctx.http.getJson<SireneAnswer>(`${ctx.baseUrl}/${p.path}?${params}`, {
    headers: { 'X-INSEE-Api-Key-Integration': key, accept: 'application/json' },
    accept: [404],
  });
  if (status === 404) {
    // The API's « aucun élément trouvé » (its header says 404): nothing changed that day. A 404
    // of another shape is a wrong address, not an empty day.
    if (Number(body?.header?.statut) === 404) return { records: [], next: null };
    throw new SyncHttpError(`l’API Sirene a répondu HTTP 404 sans en-tête Sirene (adresse SIRENE_API_URL ?)`, 404);
  }
  const records = body?.[p.list];
  if (!Array.isArray(records)) throw new SyncHttpError(`réponse de l’API Sirene sans liste « ${p.list} » pour le ${day}`, null);
  const following = body?.header?.curseurSuivant;
  if (typeof following !== 'string' || !following) throw new SyncHttpError(`réponse de l’API Sirene sans header.curseurSuivant pour le ${day}`, null);
  // The cursor given back unchanged is the end of the list.
  return { records, next: records.length === 0 || following === curseur ? null : following };
}

/** Every page of what changed since the cursor, day by day: the units, then the establishments. */
export async function* sirenePages(ctx: SyncContext): AsyncGenerator<SyncPage> {
  const key = ctx.setting('INSEE_API_KEY');
  if (!key) throw new Error('INSEE_API_KEY absente');
  const cursor = readCursor(ctx.cursor);
  // A day is read once it is over: up to yesterday (Paris).
  const yesterday = addDays(parisDay(ctx.now()), -1);
  const explicit = ctx.since !== null || ctx.until !== null;
  const first = explicit ? ((ctx.since ?? ctx.until) as string) : (cursor.day ?? cursor.next ?? cursor.done ?? yesterday);
  const last = ctx.until ?? (ctx.since && ctx.since > yesterday ? ctx.since : yesterday);
  let state: SireneCursor = { ...cursor };
  for (let day = first; day <= last; day = addDays(day, 1)) {
    const resumed = state.day === day && state.phase ? { phase: state.phase, curseur: state.curseur ?? '*' } : { phase: 'unites' as Phase, curseur: '*' };
    for (const phase of ORDER.slice(ORDER.indexOf(resumed.phase))) {
      let curseur = phase === resumed.phase ? resumed.curseur : '*';
      for (;;) {
        const { records, next } = await fetchPage(ctx, key, phase, day, curseur);
        const lastPhase = phase === ORDER[ORDER.length - 1];
        if (next !== null) state = { ...state, day, phase, curseur: next };
        else if (!lastPhase) state = { ...state, day, phase: ORDER[ORDER.indexOf(phase) + 1] as Phase, curseur: '*' };
        else state = { done: state.done && state.done > day ? state.done : day, next: addDays(day, 1), day: null, phase: null, curseur: null };
        yield { importer: PHASES[phase].importer, records: records.map(PHASES[phase].convert), cursor: state };
        if (next === null) break;
        curseur = next;
      }
    }
  }
  yield { records: [], cursor: { ...state, next: null, day: null, phase: null, curseur: null } };
}

export const sireneConnector: Connector = {
  name: 'sirene',
  label: 'entreprises et établissements du répertoire SIRENE (Insee)',
  alertSource: 'entreprise',
  importers: {
    'sirene-unites': sireneUnites as unknown as Importer<never, never>,
    'sirene-etablissements': sireneEtablissements as unknown as Importer<never, never>,
  },
  baseUrl: { setting: 'SIRENE_API_URL', default: 'https://api.insee.fr/api-sirene/3.11' },
  credentials: ['INSEE_API_KEY'],
  // Daily, once the night's processing is loaded (Paris time).
  schedule: ['30 7 * * *'],
  staleAfterHours: 30,
  budget: { requests: 30, perMs: 60_000 },
  pages: sirenePages,
};
