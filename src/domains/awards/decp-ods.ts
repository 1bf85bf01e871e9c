// The DECP as data.economie.gouv.fr's Opendatasoft portal serves them (Explore API v2.1,
// datasets `decp-2022-marches-valides`, 2022 schema, and `decp-v3-marches-valides`, 2019
// schema), turned into the published JSON shape the DECP importer reads.
//
// The portal serves flattened rows, not the published JSON (checked, 2026-11, in code that
// reads these datasets, found with the project's search tools: field lists of both datasets,
// test records, and write-ups of the live data):
// - lower-case columns: `id`, `acheteur_id`, `objet`, `codecpv`, `nature`, `procedure`,
//   `montant`, `dureemois`, `datenotification`, `datepublicationdonnees`, `formeprix`,
//   `offresrecues`, `lieuexecution_code`, `lieuexecution_typecode`, `source`, the holders in
//   three column groups `titulaire_id_N`, `titulaire_typeidentifiant_N` (N = 1..3);
// - 2022 schema (55 columns): no buyer or holder name; an amendment in `idmodification`,
//   `montantmodification`, `dureemoismodification`, `idtitulairemodification`,
//   `typeidentifianttitulairemodification`, `datenotificationmodificationmodification`,
//   `datepublicationdonneesmodificationmodification`, subcontracting in `…actesoustraitance`
//   columns; the text `CDL` fills every empty column (co-holders, amendments, framework);
// - 2019 schema: `acheteur_nom`, `lieuexecution_nom`, `titulaire_denominationsociale_N`;
//   `titulaire_id_1` is a number (a SIRET starting with 0 has lost it); an amendment in
//   `booleanmodification`, `objetmodification`, `datenotificationmodification`,
//   `datepublicationdonneesmodification`, `montantmodification`, `dureemoismodification`,
//   `titulairesmodification`;
// - one row per contract × holder × amendment × subcontracting act: `montant` (the amount
//   first notified) is repeated on each, and (`acheteur_id`, `id`) is the contract.
// The rows of one contract are gathered into one record, holders and amendments each once.
type Raw = Record<string, unknown>;

export type DecpSchema = '2019' | '2022';

/** The portal's datasets, by schema. */
export const DECP_DATASETS: Readonly<Record<DecpSchema, string>> = {
  '2022': 'decp-2022-marches-valides',
  '2019': 'decp-v3-marches-valides',
};

/** Texts the portal writes in empty columns. */
const FILLERS = new Set(['', 'CDL', 'INX']);

/** A column's value, or undefined when empty or a filler. */
function value(v: unknown): string | number | boolean | undefined {
  if (v === null || v === undefined) return undefined;
  if (typeof v === 'string') {
    const t = v.trim();
    return FILLERS.has(t.toUpperCase()) ? undefined : t;
  }
  if (typeof v === 'number') return Number.isFinite(v) ? v : undefined;
  if (typeof v === 'boolean') return v;
  return undefined;
}

/**
 * An identifier as text. A SIRET published as a number (2019 schema) has lost its leading
 * zeros: given back to 14 digits.
 */
function identifier(v: unknown, type: string | undefined): string | undefined {
  const raw = value(v);
  if (raw === undefined || typeof raw === 'boolean') return undefined;
  const text = String(raw).replace(/\s/g, '');
  if (typeof raw === 'number' && (type ?? 'SIRET').toUpperCase() === 'SIRET' && /^\d{12,13}$/.test(text)) return text.padStart(14, '0');
  return text || undefined;
}

const text = (v: unknown): string | undefined => {
  const x = value(v);
  return x === undefined || typeof x === 'boolean' ? undefined : String(x);
};

/** An object without its undefined keys (the published JSON leaves absent fields out). */
function defined<T extends Raw>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

/** The contract a row belongs to: its buyer and its id, as the importer keys awards. */
export function decpRowKey(row: unknown): string {
  const r = (row ?? {}) as Raw;
  return `${identifier(r.acheteur_id, 'SIRET') ?? ''}:${text(r.id) ?? ''}`;
}

interface Holder {
  typeIdentifiant?: string;
  id?: string;
  denominationSociale?: string;
}

function holdersOfRow(r: Raw): Holder[] {
  const out: Holder[] = [];
  for (let n = 1; n <= 3; n++) {
    const type = text(r[`titulaire_typeidentifiant_${n}`]);
    const holder = defined({ typeIdentifiant: type, id: identifier(r[`titulaire_id_${n}`], type), denominationSociale: text(r[`titulaire_denominationsociale_${n}`]) });
    if (holder.id || holder.denominationSociale) out.push(holder);
  }
  return out;
}

const holderKey = (h: Holder) => `${(h.typeIdentifiant ?? '').toUpperCase()}|${h.id ?? ''}|${h.id ? '' : (h.denominationSociale ?? '')}`;

function addHolders(into: Holder[], holders: Holder[]): void {
  for (const h of holders) {
    const same = into.find((x) => holderKey(x) === holderKey(h));
    if (!same) into.push(h);
    else if (!same.denominationSociale && h.denominationSociale) same.denominationSociale = h.denominationSociale;
  }
}

/** The amendment's holders of a 2019 row (`titulairesmodification`): a list, or a list written as JSON text. */
function holdersOf2019Amendment(v: unknown): unknown[] | undefined {
  if (Array.isArray(v)) return v.length ? v : undefined;
  if (v && typeof v === 'object') return [v];
  const t = text(v);
  if (!t) return undefined;
  try {
    const parsed = JSON.parse(t) as unknown;
    return Array.isArray(parsed) ? parsed : parsed && typeof parsed === 'object' ? [parsed] : undefined;
  } catch {
    // Not JSON: the amendment is kept without its holders.
    return undefined;
  }
}

interface Amendment {
  key: string;
  fields: Raw;
  holders: Holder[];
  /** 2019: the holders as published (kept whole). */
  published?: unknown[];
}

function amendmentOfRow(r: Raw, schema: DecpSchema): Amendment | null {
  if (schema === '2022') {
    const fields = defined({
      id: value(r.idmodification),
      dateNotificationModification: text(r.datenotificationmodificationmodification),
      datePublicationDonneesModification: text(r.datepublicationdonneesmodificationmodification),
      montant: value(r.montantmodification),
      dureeMois: value(r.dureemoismodification),
    });
    const type = text(r.typeidentifianttitulairemodification);
    const holderId = identifier(r.idtitulairemodification, type);
    if (!Object.keys(fields).length && !holderId) return null;
    const key = [fields.id, fields.dateNotificationModification, fields.datePublicationDonneesModification].map((x) => String(x ?? '')).join('|');
    return { key, fields, holders: holderId ? [defined({ typeIdentifiant: type, id: holderId })] : [] };
  }
  const fields = defined({
    id: value(r.idmodification),
    objetModification: text(r.objetmodification),
    dateNotificationModification: text(r.datenotificationmodification),
    datePublicationDonneesModification: text(r.datepublicationdonneesmodification),
    montant: value(r.montantmodification),
    dureeMois: value(r.dureemoismodification),
  });
  const published = holdersOf2019Amendment(r.titulairesmodification);
  // `booleanmodification` alone says nothing of the amendment: only its columns do.
  if (!Object.keys(fields).length && !published) return null;
  const key = [fields.id, fields.objetModification, fields.dateNotificationModification, fields.datePublicationDonneesModification, fields.montant, fields.dureeMois].map((x) => String(x ?? '')).join('|');
  return { key, fields, holders: [], published };
}

/** One contract's record in the published JSON shape of its schema, from its rows. */
function contractOf(rows: Raw[], schema: DecpSchema): Raw {
  const first = rows[0] as Raw;
  const holders: Holder[] = [];
  const amendments: Amendment[] = [];
  for (const r of rows) {
    addHolders(holders, holdersOfRow(r));
    const a = amendmentOfRow(r, schema);
    if (!a) continue;
    const same = amendments.find((x) => x.key === a.key);
    if (same) addHolders(same.holders, a.holders);
    else amendments.push(a);
  }
  const acheteurId = identifier(first.acheteur_id, 'SIRET');
  const lieu = defined({ code: text(first.lieuexecution_code), typeCode: text(first.lieuexecution_typecode), nom: text(first.lieuexecution_nom) });
  const wrap = (h: Holder) => (schema === '2022' ? { titulaire: h } : h);
  const modifications = amendments.map((a) => {
    const titulaires = a.published ?? (a.holders.length ? a.holders.map(wrap) : undefined);
    const m = defined({ ...a.fields, titulaires });
    return schema === '2022' ? { modification: m } : m;
  });
  return defined({
    id: text(first.id),
    acheteur: acheteurId || text(first.acheteur_nom) ? defined({ id: acheteurId, nom: text(first.acheteur_nom) }) : undefined,
    nature: text(first.nature),
    objet: text(first.objet),
    codeCPV: text(first.codecpv),
    procedure: text(first.procedure),
    lieuExecution: Object.keys(lieu).length ? lieu : undefined,
    dureeMois: value(first.dureemois),
    dateNotification: text(first.datenotification),
    datePublicationDonnees: text(first.datepublicationdonnees),
    montant: value(first.montant),
    formePrix: text(first.formeprix),
    offresRecues: value(first.offresrecues),
    idAccordCadre: text(first.idaccordcadre),
    source: text(first.source),
    titulaires: holders.map(wrap),
    modifications,
  });
}

/**
 * The contracts of a set of rows of one dataset, in the order they first appear, each in the
 * published JSON shape the DECP importer reads. A row that is not an object, or has no id,
 * stays alone (the importer says why it is skipped).
 */
export function decpContractsOfRows(rows: readonly unknown[], schema: DecpSchema): unknown[] {
  const groups = new Map<string, Raw[]>();
  const out: (Raw[] | unknown)[] = [];
  for (const row of rows) {
    if (!row || typeof row !== 'object' || Array.isArray(row)) {
      out.push({ alone: row });
      continue;
    }
    const key = decpRowKey(row);
    const group = groups.get(key);
    if (!text((row as Raw).id)) out.push([row as Raw]);
    else if (group) group.push(row as Raw);
    else {
      const created = [row as Raw];
      groups.set(key, created);
      out.push(created);
    }
  }
  return out.map((g) => (Array.isArray(g) ? contractOf(g as Raw[], schema) : (g as { alone: unknown }).alone));
}
