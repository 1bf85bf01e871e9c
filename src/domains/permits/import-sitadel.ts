// Sitadel lists of building permits (SDES), `;`-separated CSV, in both published layouts:
// - current (2024 on): TWO header lines, the columns' labels then their codes; one list per
//   kind of authorisation, whose number and state columns differ: `NUM_DAU`/`ETAT_DAU` with
//   `TYPE_DAU` (PC or DP) in the housing and non-residential premises lists, `NUM_PD`/
//   `ETAT_PD` in the demolition list, `NUM_PA`/`ETAT_PA` in the development list;
// - older (2013-2022 files): ONE header line of codes, some in mixed case (`Type_DAU`,
//   `Num_DAU`, `Etat_DAU`, `sec_cadastre1`), `REG`/`DEP` for `REG_CODE`/`DEP_CODE`,
//   `NATURE_PROJET` for `NATURE_PROJET_DECLAREE`, and Latin-1 text.
// Columns are read by code name, case ignored, wherever they stand. The lists name an
// applicant only when it is a legal person (`DENOM_DEM`, `SIREN_DEM`): nothing else about
// an applicant is kept (no postal code nor locality of a private one). They carry no
// telephone, e-mail or web address.
import type { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { CsvSplitter, type CsvRecord } from '../../import/csv.js';
import { rowBuilder } from '../../import/records.js';
import type { Importer, Mapped, RawRecord } from '../../import/importer.js';
import { departementOfCommune, isoDate, isSiren, isSiret } from '../../import/fields.js';
import { upsertRows } from '../../import/upsert.js';
import { isValidDepartementCode } from '../reference/lists.js';
import { reindexPermits, type IndexedPermit } from './search-index.js';
import { STATE_LABELS, type PermitRow, type PermitState, type PermitType } from './rows.js';

type Csv = Record<string, string>;

export const SITADEL_LAYOUTS =
  'listes Sitadel du SDES séparées par « ; » : actuelle à deux lignes d’en-tête (libellés puis codes : NUM_DAU/ETAT_DAU/TYPE_DAU, NUM_PD/ETAT_PD, NUM_PA/ETAT_PA), ou ancienne à une ligne d’en-tête de codes (Type_DAU, Num_DAU, Etat_DAU)';

/** Older names of the codes, mapped to the current ones (after upper-casing). */
const ALIASES: Readonly<Record<string, string>> = { REG: 'REG_CODE', DEP: 'DEP_CODE', NATURE_PROJET: 'NATURE_PROJET_DECLAREE' };

/** A header line of codes: it names the commune and one of the number columns. */
function isCodesLine(fields: readonly string[]): boolean {
  const names = new Set(fields.map((f) => f.trim().toUpperCase()));
  return names.has('COMM') && (names.has('NUM_DAU') || names.has('NUM_PD') || names.has('NUM_PA'));
}

function headerOf(fields: readonly string[]): string[] {
  return fields.map((f) => {
    const code = f.trim().toUpperCase();
    return ALIASES[code] ?? code;
  });
}

/**
 * The text of the input: UTF-8 (the current lists), or Latin-1 (windows-1252) when the first
 * bytes are not valid UTF-8 (the older lists).
 */
function textDecoder(first: Buffer): { write: (b: Buffer) => string; end: () => string } {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(first, { stream: true });
    const d = new StringDecoder('utf8');
    return { write: (b) => d.write(b), end: () => d.end() };
  } catch {
    const d = new TextDecoder('windows-1252');
    return { write: (b) => d.decode(b, { stream: true }), end: () => d.decode() };
  }
}

/** The rows of a Sitadel list by code name, whichever header layout it has. */
export async function* sitadelRecords(stream: Readable): AsyncGenerator<RawRecord<Csv>> {
  let decoder: ReturnType<typeof textDecoder> | null = null;
  let splitter: CsvSplitter | null = null;
  let header: string[] | null = null;
  let build: (fields: string[]) => Csv = () => ({});
  let firstLine: { line: number; fields: string[] } | null = null;
  let failed = false;
  let out: CsvRecord[] = [];
  const records = function* (): Generator<RawRecord<Csv>> {
    const list = out;
    out = [];
    for (const record of list) {
      if (failed) return;
      if ('error' in record) {
        yield { position: record.line, error: `ligne illisible (${record.error})` };
        continue;
      }
      if (!header) {
        if (isCodesLine(record.fields)) {
          header = headerOf(record.fields);
          build = rowBuilder(header);
          continue;
        }
        // The current layout: a line of labels first, the codes on the next one.
        if (!firstLine) {
          firstLine = record;
          continue;
        }
        failed = true;
        yield { position: record.line, error: 'en-tête Sitadel introuvable : ni la première ni la deuxième ligne ne donnent les codes des colonnes (COMM et NUM_DAU, NUM_PD ou NUM_PA)', stop: true };
        return;
      }
      if (record.fields.length !== header.length) {
        yield { position: record.line, error: `nombre de colonnes incorrect (${record.fields.length} au lieu de ${header.length})` };
        continue;
      }
      yield { position: record.line, value: build(record.fields) };
    }
  };
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    if (!decoder || !splitter) {
      decoder = textDecoder(chunk);
      const text = decoder.write(chunk);
      // `;` as published; a file saved again with commas is read too (the first line tells).
      const firstEnd = text.indexOf('\n');
      const first = firstEnd === -1 ? text : text.slice(0, firstEnd);
      splitter = new CsvSplitter(!first.includes(';') && first.includes(',') ? ',' : ';');
      splitter.push(text, out);
    } else splitter.push(decoder.write(chunk), out);
    yield* records();
    if (failed) return;
  }
  if (!decoder || !splitter) return;
  splitter.push(decoder.end(), out);
  splitter.end(out);
  yield* records();
  if (!header && !failed && firstLine)
    yield { position: (firstLine as { line: number }).line, error: 'en-tête Sitadel introuvable : aucune ligne ne donne les codes des colonnes (COMM et NUM_DAU, NUM_PD ou NUM_PA)', stop: true };
}

const text = (v: string | undefined) => {
  const t = (v ?? '').trim();
  return t || null;
};

/** A number of the lists (`1319`, `18737`, `12.5`, `12,5`); null when empty or unreadable. */
function decimal(v: string | undefined): number | null | undefined {
  const t = (v ?? '').trim();
  if (!t) return undefined;
  const n = Number(t.replace(',', '.'));
  return Number.isFinite(n) && n >= 0 ? n : null;
}

/** Registration numbers: spaces, dots, hyphens and slashes dropped, upper case. */
export function normalisePermitNumber(raw: string): string {
  return raw.replace(/[\s./-]/g, '').toUpperCase();
}

const KINDS = new Set<PermitType>(['PC', 'DP', 'PA', 'PD']);

/** NATURE_PROJET_DECLAREE / NATURE_PROJET_COMPLETEE (Sitadel's documentation). */
const NATURES: Readonly<Record<string, string>> = { '1': 'Nouvelle construction', '2': 'Travaux sur construction existante' };

function natureOf(r: Csv): string | null {
  for (const column of ['NATURE_PROJET_COMPLETEE', 'NATURE_PROJET_DECLAREE']) {
    const code = text(r[column]);
    if (code) return NATURES[code] ?? null;
  }
  return null;
}

function addressOf(r: Csv): string | null {
  const street = [text(r.ADR_NUM_TER), text(r.ADR_TYPEVOIE_TER), text(r.ADR_LIBVOIE_TER)].filter(Boolean).join(' ');
  return [street || null, text(r.ADR_LIEUDIT_TER)].filter(Boolean).join(', ') || null;
}

/** The number, state and kind columns of the list the row comes from. */
function kindColumns(r: Csv): { number: string | undefined; state: string | undefined; kind: string | undefined } {
  if (r.NUM_DAU !== undefined) return { number: r.NUM_DAU, state: r.ETAT_DAU, kind: r.TYPE_DAU };
  if (r.NUM_PD !== undefined) return { number: r.NUM_PD, state: r.ETAT_PD, kind: 'PD' };
  return { number: r.NUM_PA, state: r.ETAT_PA, kind: 'PA' };
}

export const sitadel: Importer<Csv, PermitRow> = {
  name: 'permis',
  input: { unit: 'ligne', layouts: SITADEL_LAYOUTS },
  read: (stream: Readable) => sitadelRecords(stream),
  sortKey: (row) => row.id,
  map(r, now): Mapped<PermitRow> {
    const columns = kindColumns(r);
    const numero = normalisePermitNumber(columns.number ?? '');
    if (!numero) return { skip: 'numéro d’autorisation absent' };
    if (!/^[0-9A-Z]{6,30}$/.test(numero)) return { skip: `numéro d’autorisation illisible (${columns.number})` };
    const type = (columns.kind ?? '').trim().toUpperCase() as PermitType;
    if (!KINDS.has(type)) return { skip: `sorte d’autorisation absente ou inconnue (${columns.kind ?? ''}) : PC, DP, PA ou PD attendue` };
    const etat = (columns.state ?? '').trim() as PermitState;
    if (!STATE_LABELS[etat]) return { skip: `état d’avancement inconnu (${columns.state ?? ''}) : 2, 4, 5 ou 6 attendu` };
    const commune = (r.COMM ?? '').trim().toUpperCase();
    const departement = departementOfCommune(commune);
    if (!departement || !isValidDepartementCode(departement)) return { skip: `code commune du terrain invalide (${r.COMM ?? ''})` };
    const autorisation = isoDate(r.DATE_REELLE_AUTORISATION);
    const ouverture = isoDate(r.DATE_REELLE_DOC);
    const achevement = isoDate(r.DATE_REELLE_DAACT);
    if (autorisation === null) return { skip: `date d’autorisation illisible (${r.DATE_REELLE_AUTORISATION})` };
    if (ouverture === null) return { skip: `date d’ouverture de chantier illisible (${r.DATE_REELLE_DOC})` };
    if (achevement === null) return { skip: `date d’achèvement illisible (${r.DATE_REELLE_DAACT})` };
    const annee = Number((r.AN_DEPOT ?? '').trim());
    const siren = (r.SIREN_DEM ?? '').replace(/\s/g, '');
    const siret = (r.SIRET_DEM ?? '').replace(/\s/g, '');
    const postal = (r.ADR_CODPOST_TER ?? '').trim();
    const surfaceHab = decimal(r.SURF_HAB_CREEE);
    const surfaceLoc = decimal(r.SURF_LOC_CREEE);
    const row: PermitRow = {
      id: `${type}${numero}`,
      numero,
      type,
      etat,
      date_autorisation: autorisation ?? null,
      date_ouverture_chantier: ouverture ?? null,
      date_achevement: achevement ?? null,
      annee_depot: Number.isInteger(annee) && annee >= 1900 && annee <= 2200 ? annee : null,
      commune,
      departement,
      localite: text(r.ADR_LOCALITE_TER),
      // The lists hold « 31 », « 0 » or nothing as often as a real postal code.
      code_postal: /^\d{5}$/.test(postal) ? postal : null,
      adresse: addressOf(r),
      nature_projet: natureOf(r),
      superficie_terrain: decimal(r.SUPERFICIE_TERRAIN) ?? null,
      // A legal person only (the lists never name a private applicant).
      demandeur: text(r.DENOM_DEM),
      siren_demandeur: isSiren(siren) ? siren : null,
      siret_demandeur: isSiret(siret) ? siret : null,
      categorie_juridique_demandeur: /^\d{4}$/.test((r.CJ_DEM ?? '').trim()) ? (r.CJ_DEM as string).trim() : null,
      activite_demandeur: /^\d{2}\.?\d{2}[A-Z]$/.test((r.APE_DEM ?? '').trim()) ? (r.APE_DEM as string).trim() : null,
      source_updated: text(r.DPC_DERN),
      ingested_at: now,
      updated_at: now,
    };
    // Only from the lists that have these columns: a permit listed both as creating housing
    // and as creating premises keeps what each list gave. A demolition or development permit
    // is in one list only (its kind is in its id): it has none of them.
    if (type === 'PD' || type === 'PA') {
      row.logements = null;
      row.surface_habitation_creee = null;
      row.surface_locaux_creee = null;
      row.surface_creee = null;
      return { row };
    }
    if (r.NB_LGT_TOT_CREES !== undefined) {
      const n = decimal(r.NB_LGT_TOT_CREES);
      row.logements = n === undefined || n === null ? null : Math.round(n);
    }
    if (r.SURF_HAB_CREEE !== undefined) row.surface_habitation_creee = surfaceHab ?? null;
    if (r.SURF_LOC_CREEE !== undefined) row.surface_locaux_creee = surfaceLoc ?? null;
    if (r.SURF_HAB_CREEE !== undefined || r.SURF_LOC_CREEE !== undefined)
      row.surface_creee = (surfaceHab ?? null) === null && (surfaceLoc ?? null) === null ? null : (surfaceHab ?? 0) + (surfaceLoc ?? 0);
    return { row };
  },
  async write(trx, rows) {
    // Rows of one shape per statement (a list without the housing columns leaves them as stored).
    const shapes = new Map<string, PermitRow[]>();
    for (const row of rows) {
      const shape = Object.keys(row).join(',');
      const list = shapes.get(shape);
      if (list) list.push(row);
      else shapes.set(shape, [row]);
    }
    const counts = { inserted: 0, updated: 0, kept: 0 };
    const indexed: IndexedPermit[] = [];
    const reread: string[] = [];
    for (const group of shapes.values()) {
      const { applied, ...c } = await upsertRows(trx, 'permits', 'id', group, { keepOnUpdate: ['ingested_at'], versionColumn: 'source_updated' });
      counts.inserted += c.inserted;
      counts.updated += c.updated;
      counts.kept += c.kept;
      for (const row of applied) {
        if ('logements' in row) indexed.push(row);
        else reread.push(row.id);
      }
    }
    // A row without the housing count: its document is built from what the table holds.
    for (let i = 0; i < reread.length; i += 500) {
      const stored = (await trx('permits')
        .whereIn('id', reread.slice(i, i + 500))
        .select('id', 'type', 'demandeur', 'nature_projet', 'logements', 'localite')) as IndexedPermit[];
      indexed.push(...stored);
    }
    await reindexPermits(trx, indexed);
    return counts;
  },
};
