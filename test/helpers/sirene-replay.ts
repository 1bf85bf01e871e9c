// The INSEE's API Sirene 3.11 replayed: legal units and establishments in the API's published
// JSON layout (`header` {statut, message, total, debut, nombre, curseur, curseurSuivant},
// `unitesLegales[]` with `periodesUniteLegale[]`, `etablissements[]` with `adresseEtablissement`
// and `periodesEtablissement[]`), cut from the real stock rows of ../shared/real-samples/sirene
// (their SIREN and processing instant changed), and a handler answering the daily-change
// queries as the API does: cursor paging (`curseur=*`, then `curseurSuivant`, given back
// unchanged at the end), `nombre` ≤ 1,000, 404 « Aucun élément trouvé » on an empty day, 401
// without the right key. `sireneDayUnits(day, n)` builds a day of any size (the benchmark's).
import { readFileSync } from 'node:fs';
import type { ReplayHandler } from './replay-server.js';

type Json = Record<string, unknown>;
export type StockRow = Record<string, string>;

function readStock(file: string): StockRow[] {
  const text = readFileSync(new URL(`../../../shared/real-samples/sirene/${file}`, import.meta.url), 'utf8');
  const [head, ...lines] = text.split(/\r?\n/).filter((l) => l.trim());
  const columns = (head as string).split(',');
  // These samples hold no quoted field (checked: no `"` in them).
  return lines.map((line) => {
    const fields = line.split(',');
    return Object.fromEntries(columns.map((c, i) => [c, fields[i] ?? '']));
  });
}

/** Real StockUniteLegale rows: the current layout (with NAF 2025) and the 2019 one (a natural person, a purged unit). */
export const REAL_UNIT_ROWS: StockRow[] = [...readStock('joao-sdx-mailing-insee-echantillon-StockUniteLegale.csv'), ...readStock('sirene_as_api-sample_unites_legales_OK.csv')];
/** Real StockEtablissement rows (closed establishments of the 2019 stock, without address or creation date). */
export const REAL_ESTABLISHMENT_ROWS: StockRow[] = readStock('sirene_as_api-sample_etablissements_OK.csv');

/** The API's JSON value of a stock cell: null when empty. */
const value = (v: string | undefined): string | null => (v === undefined || v === '' ? null : v);
const pick = (row: StockRow, names: readonly string[]): Json => Object.fromEntries(names.map((n) => [n, value(row[n])]));

/** The processing instant as the API writes it (milliseconds). */
const apiInstant = (v: string) => (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/.test(v) ? `${v}.000` : v);

const UNIT_FIELDS = ['siren', 'statutDiffusionUniteLegale', 'dateCreationUniteLegale', 'sigleUniteLegale', 'sexeUniteLegale', 'prenom1UniteLegale', 'prenom2UniteLegale', 'prenom3UniteLegale', 'prenom4UniteLegale', 'prenomUsuelUniteLegale', 'pseudonymeUniteLegale', 'identifiantAssociationUniteLegale', 'trancheEffectifsUniteLegale', 'anneeEffectifsUniteLegale'] as const;
const UNIT_PERIOD_FIELDS = [
  ['etatAdministratifUniteLegale', 'changementEtatAdministratifUniteLegale'],
  ['nomUniteLegale', 'changementNomUniteLegale'],
  ['nomUsageUniteLegale', 'changementNomUsageUniteLegale'],
  ['denominationUniteLegale', 'changementDenominationUniteLegale'],
  ['denominationUsuelle1UniteLegale', null],
  ['denominationUsuelle2UniteLegale', null],
  ['denominationUsuelle3UniteLegale', 'changementDenominationUsuelleUniteLegale'],
  ['categorieJuridiqueUniteLegale', 'changementCategorieJuridiqueUniteLegale'],
  ['activitePrincipaleUniteLegale', null],
  ['nomenclatureActivitePrincipaleUniteLegale', 'changementActivitePrincipaleUniteLegale'],
  ['nicSiegeUniteLegale', 'changementNicSiegeUniteLegale'],
  ['economieSocialeSolidaireUniteLegale', 'changementEconomieSocialeSolidaireUniteLegale'],
  ['societeMissionUniteLegale', 'changementSocieteMissionUniteLegale'],
  ['caractereEmployeurUniteLegale', 'changementCaractereEmployeurUniteLegale'],
  ['activitePrincipaleNAF25UniteLegale', null],
] as const;

function period(row: StockRow, fields: readonly (readonly [string, string | null])[], dateFin: string | null, dateDebut: string | null, changes: boolean): Json {
  const p: Json = { dateFin, dateDebut };
  for (const [field, change] of fields) {
    p[field] = value(row[field]);
    if (change) p[change] = changes;
  }
  return p;
}

const dayBefore = (day: string) => new Date(Date.parse(`${day}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10);

/** A legal unit as the API answers it: its current period first (`dateFin` null), then an older one under another name. */
export function apiUnit(row: StockRow): Json {
  const current = period(row, UNIT_PERIOD_FIELDS, null, value(row.dateDebut), true);
  const periods: Json[] = [current];
  const start = value(row.dateDebut);
  const created = value(row.dateCreationUniteLegale);
  if (start && created && created < start) {
    const older = period(row, UNIT_PERIOD_FIELDS, dayBefore(start), created, false);
    if (older.denominationUniteLegale) older.denominationUniteLegale = `${String(older.denominationUniteLegale)} (ANCIENNE DENOMINATION)`;
    older.etatAdministratifUniteLegale = 'A';
    periods.push(older);
  }
  return {
    ...pick(row, UNIT_FIELDS),
    unitePurgeeUniteLegale: row.unitePurgeeUniteLegale === 'true' ? true : null,
    dateDernierTraitementUniteLegale: apiInstant(row.dateDernierTraitementUniteLegale ?? ''),
    nombrePeriodesUniteLegale: Number(row.nombrePeriodesUniteLegale) || periods.length,
    categorieEntreprise: value(row.categorieEntreprise),
    anneeCategorieEntreprise: value(row.anneeCategorieEntreprise),
    periodesUniteLegale: periods,
  };
}

const ESTABLISHMENT_FIELDS = ['siren', 'nic', 'siret', 'statutDiffusionEtablissement', 'dateCreationEtablissement', 'trancheEffectifsEtablissement', 'anneeEffectifsEtablissement', 'activitePrincipaleRegistreMetiersEtablissement'] as const;
const ADDRESS_FIELDS = [
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
] as const;
const ESTABLISHMENT_PERIOD_FIELDS = [
  ['etatAdministratifEtablissement', 'changementEtatAdministratifEtablissement'],
  ['enseigne1Etablissement', null],
  ['enseigne2Etablissement', null],
  ['enseigne3Etablissement', 'changementEnseigneEtablissement'],
  ['denominationUsuelleEtablissement', 'changementDenominationUsuelleEtablissement'],
  ['activitePrincipaleEtablissement', null],
  ['nomenclatureActivitePrincipaleEtablissement', 'changementActivitePrincipaleEtablissement'],
  ['caractereEmployeurEtablissement', 'changementCaractereEmployeurEtablissement'],
] as const;

/** An establishment as the API answers it, its unit's main fields nested as the API does. */
export function apiEstablishment(row: StockRow): Json {
  return {
    ...pick(row, ESTABLISHMENT_FIELDS),
    dateDernierTraitementEtablissement: apiInstant(row.dateDernierTraitementEtablissement ?? ''),
    etablissementSiege: row.etablissementSiege === 'true',
    nombrePeriodesEtablissement: Number(row.nombrePeriodesEtablissement) || 1,
    uniteLegale: { etatAdministratifUniteLegale: 'A', statutDiffusionUniteLegale: 'O', denominationUniteLegale: null, categorieJuridiqueUniteLegale: null },
    adresseEtablissement: pick(row, ADDRESS_FIELDS),
    adresse2Etablissement: { complementAdresse2Etablissement: null, numeroVoie2Etablissement: null, typeVoie2Etablissement: null, libelleVoie2Etablissement: null, codePostal2Etablissement: null, libelleCommune2Etablissement: null },
    periodesEtablissement: [period(row, ESTABLISHMENT_PERIOD_FIELDS, null, value(row.dateDebut), false)],
  };
}

/** A SIREN per day and rank, the same on every call: days since 2020 then the rank. */
export function sirenOf(day: string, i: number): string {
  const days = Math.round((Date.parse(`${day}T00:00:00Z`) - Date.parse('2020-01-01T00:00:00Z')) / 86_400_000);
  return String(days * 100_000 + i).padStart(9, '0');
}

/** A processing instant in the night of `day` (the API's form), different for each rank. */
const instantOf = (day: string, i: number) => `${day}T0${Math.floor(i / 3600) % 10}:${String(Math.floor(i / 60) % 60).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}`;

/** `n` legal units processed on `day` (ranks from `from`), each a real stock row with its SIREN and instant changed. */
export function sireneDayUnits(day: string, n: number, from = 0): Json[] {
  const out: Json[] = [];
  for (let i = from; i < from + n; i++) {
    const real = REAL_UNIT_ROWS[i % REAL_UNIT_ROWS.length] as StockRow;
    out.push(apiUnit({ ...real, siren: sirenOf(day, i), dateDernierTraitementUniteLegale: instantOf(day, i) }));
  }
  return out;
}

/**
 * The head offices of the same units (`n` from `from`), each a real stock row with its SIRET and
 * instant changed; open, with an address and a creation date (the real rows have none).
 */
export function sireneDayEstablishments(day: string, n: number, from = 0): Json[] {
  const out: Json[] = [];
  for (let i = from; i < from + n; i++) {
    const real = REAL_ESTABLISHMENT_ROWS[i % REAL_ESTABLISHMENT_ROWS.length] as StockRow;
    const siren = sirenOf(day, i);
    out.push(
      apiEstablishment({
        ...real,
        siren,
        nic: '00012',
        siret: `${siren}00012`,
        dateCreationEtablissement: real.dateCreationEtablissement || '2019-03-01',
        dateDernierTraitementEtablissement: instantOf(day, i),
        etablissementSiege: 'true',
        etatAdministratifEtablissement: 'A',
        numeroVoieEtablissement: String(1 + (i % 90)),
        typeVoieEtablissement: 'RUE',
        libelleVoieEtablissement: 'DE SIAM',
        codePostalEtablissement: '29200',
        libelleCommuneEtablissement: 'BREST',
        codeCommuneEtablissement: '29019',
      }),
    );
  }
  return out;
}

/** What the replayed API holds, and the key it accepts. */
export interface SireneDataset {
  key: string;
  unites: Json[];
  etablissements: Json[];
}

/** A cursor as the API writes one (Solr's: base64 of the sort value after which the next page starts). */
export function sireneCursor(after: string): string {
  return Buffer.concat([Buffer.from([0x02, 0x81, 0x20 + after.length]), Buffer.from(after)]).toString('base64');
}
const afterOf = (cursor: string) => Buffer.from(cursor, 'base64').subarray(3).toString();

const sireneError = (status: number, message: string) => ({ status, json: { header: { statut: status, message } } });

export interface SireneHandlerOptions {
  /** The last page with records gives its own cursor back (the end seen on a page with records), instead of one more empty page. */
  lastPageRepeats?: boolean;
}

/** Answers `/siren` and `/siret` for the daily-change queries, as the API Sirene 3.11 does. */
export function sireneHandler(data: () => SireneDataset, options: SireneHandlerOptions = {}): ReplayHandler {
  return (req) => {
    const m0 = /\/api-sirene\/3\.11\/(siren|siret)$/.exec(req.path);
    // Elsewhere the gateway answers, without the API's header.
    if (!m0) return { status: 404, json: { code: '404', type: 'Status report', message: 'Not Found', description: 'The requested resource is not available.' } };
    const kind = m0[1] === 'siren' ? 'unites' : 'etablissements';
    const dataset = data();
    if (req.headers['x-insee-api-key-integration'] !== dataset.key) return { status: 401, json: { code: 900901, message: 'Invalid Credentials', description: 'Invalid Credentials. Make sure you have given the correct access token' } };
    const field = kind === 'unites' ? 'dateDernierTraitementUniteLegale' : 'dateDernierTraitementEtablissement';
    const key = kind === 'unites' ? 'siren' : 'siret';
    const q = req.query.get('q') ?? '';
    const m = new RegExp(`^${field}:\\[(\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}) TO (\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2})\\]$`).exec(q);
    if (!m) return sireneError(400, `Erreur de syntaxe dans le paramètre q=${q}`);
    const nombre = Number(req.query.get('nombre') ?? 20);
    if (!Number.isInteger(nombre) || nombre < 0 || nombre > 1000) return sireneError(400, 'Le paramètre nombre doit être compris entre 0 et 1000');
    const curseur = req.query.get('curseur');
    if (req.query.has('debut') && Number(req.query.get('debut')) + nombre > 10_000) return sireneError(400, 'La somme des paramètres debut et nombre doit être inférieure à 10000');
    const [low, high] = [m[1] as string, `${m[2] as string}.999`];
    const matching = dataset[kind]
      .filter((r) => {
        const at = String(r[field]);
        return at >= low && at <= high;
      })
      .sort((a, b) => String(a[key]).localeCompare(String(b[key])));
    if (!matching.length) return sireneError(404, `Aucun élément trouvé pour q=${q}`);
    const after = curseur && curseur !== '*' ? afterOf(curseur) : null;
    const start = after === null ? 0 : matching.findIndex((r) => String(r[key]) > after);
    const page = start < 0 ? [] : matching.slice(start, start + nombre);
    const reachedEnd = start < 0 || start + nombre >= matching.length;
    const following = page.length && !(options.lastPageRepeats && reachedEnd) ? sireneCursor(String(page[page.length - 1]?.[key])) : (curseur ?? '*');
    return {
      gzip: true,
      json: {
        header: { statut: 200, message: 'OK', total: matching.length, debut: 0, nombre: page.length, ...(curseur ? { curseur, curseurSuivant: following } : {}) },
        [kind === 'unites' ? 'unitesLegales' : 'etablissements']: page,
      },
    };
  };
}
