// BODACC announcements (dataset `annonces-commerciales` of the DILA's Opendatasoft portal,
// bodacc-datadila.opendatasoft.com), in every layout the portal gives: Explore API v2.1
// answers ({"total_count": N, "results": […]}), v1 answers (`records/1.0/search`: {"nhits",
// "parameters", "records": [{"fields": {…}}]}), JSON exports (an array) and JSON lines.
//
// No real file of this dataset could be found committed anywhere (SOURCES.md); the fields
// and their shapes come from code that reads the live API, found with the project's search
// tools (2026-11):
// - annuaire-entreprises-data-gouv-fr/site, clients/open-data-soft/clients/bodacc/index.ts
//   (the official company directory): `registre` ("833 310 592,833310592" in v1), `ville`,
//   `cp`, `numerodepartement`, `departement_nom_officiel`, `publicationavis` (A/B/C),
//   `parution`, `numeroannonce`, `typeavis`/`typeavis_lib` ("Avis initial"),
//   `familleavis`/`familleavis_lib`, and the detail fields as JSON inside strings:
//   listepersonnes {"personne": {"typePersonne": "pm", "denomination", "formeJuridique",
//   "activite", "numeroImmatriculation": {"numeroIdentification": "833 310 592", …},
//   "adresseSiegeSocial": {…}}}, jugement {"date", "complementJugement", "type", "famille",
//   "nature"}, acte {"creation": {"categorieCreation"}, "dateCommencementActivite",
//   "dateImmatriculation"}, depot {"dateCloture", "typeDepot"}, radiationaurcs
//   {"radiationPM": "O"} or {"radiationPP": {"dateCessationActivitePP"}},
//   modificationsgenerales {"descriptif"}.
// - A Python client checked against live answers (2026-09, found by its docstring, repository
//   not identified): `registre` is a list [spaced, unspaced] in either order, `personne` and
//   `etablissement` are an object or a list, jugement dates may be French text ("10 décembre
//   2009"), acte {"vente": {"categorieVente", "dateEffet"}}, origineFonds may carry a price,
//   and the ten family labels (Créations, Immatriculations, Procédures collectives, Procédures
//   de conciliation, Procédures de rétablissement professionnel, Modifications diverses,
//   Radiations, Dépôts des comptes, Ventes et cessions, Annonces diverses).
// - Test fixtures reproducing API records (ids A202601824374…, registre ["849933825",
//   "849 933 825"]; a natural person {"typePersonne": "pp", "nom", "prenom", "nomUsage",
//   "nomCommercial"}; a sale citing two SIRENs in `registre`).
//
// Kept: what a buyer needs. A natural person (`pp`) keeps its trade name only, never its
// civil name (`commercant` of a pp is "NOM, Prénom"), birth, nationality or address; no
// officer, no address of any kind, no free text of a judgment (`complementJugement` names
// the court's agents and their addresses); a telephone, e-mail or web address inside a kept
// text is removed. A detail field that cannot be read keeps the record without it (noted).
import type { Readable } from 'node:stream';
import { jsonRecords, JSON_LAYOUTS, type RawRecord } from '../../import/records.js';
import type { Importer, Mapped } from '../../import/importer.js';
import { departementOfPostalCode, isoDate } from '../../import/fields.js';
import { upsertRows, insertIgnoring, deleteWhereIn } from '../../import/upsert.js';
import { maskContactDetails } from '../../import/contact-details.js';
import { DEPARTEMENTS } from '../reference/lists.js';
import { reindexAnnouncements, withAnnouncementDocuments } from './search-index.js';
import type { AnnouncementRow } from './rows.js';

type Raw = Record<string, unknown>;

/** The ten families (`familleavis`) and their labels (`familleavis_lib`), as the portal publishes them. */
export const BODACC_FAMILIES: Readonly<Record<string, string>> = {
  creation: 'Créations',
  immatriculation: 'Immatriculations',
  collective: 'Procédures collectives',
  conciliation: 'Procédures de conciliation',
  retablissement_professionnel: 'Procédures de rétablissement professionnel',
  modification: 'Modifications diverses',
  radiation: 'Radiations',
  dpc: 'Dépôts des comptes',
  vente: 'Ventes et cessions',
  divers: 'Annonces diverses',
};
const FAMILY_BY_LABEL = new Map(Object.entries(BODACC_FAMILIES).map(([code, label]) => [fold(label), code]));

/** The families of a company's proceedings (its record lists them). */
export const PROCEEDING_FAMILIES = ['collective', 'conciliation', 'retablissement_professionnel'] as const;

/** The detail fields published as JSON inside strings. */
const DETAIL_FIELDS = ['listepersonnes', 'listeetablissements', 'jugement', 'acte', 'modificationsgenerales', 'radiationaurcs', 'depot'] as const;

const DEPARTEMENT_CODES = new Set(DEPARTEMENTS.map((d) => d.code));
const DEPARTEMENT_NAMES = new Map(DEPARTEMENTS.map((d) => [d.code, d.nom]));

function fold(text: string): string {
  return text
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .trim();
}

const str = (v: unknown, max = 10_000): string | null => {
  const s = typeof v === 'string' ? v.trim() : typeof v === 'number' && Number.isFinite(v) ? String(v) : '';
  return s ? s.slice(0, max) : null;
};

const asObject = (v: unknown): Raw | null => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Raw) : null);
/** `personne`, `etablissement`: an object when there is one, a list when there are several. */
const asList = (v: unknown): Raw[] => (Array.isArray(v) ? v.map(asObject).filter((o): o is Raw => o !== null) : asObject(v) ? [v as Raw] : []);

/** A detail field: JSON inside a string (or, from some exports, the object itself); `unreadable` when it cannot be parsed. */
export function detailField(value: unknown): Raw | null | 'unreadable' {
  if (value === null || value === undefined || value === '') return null;
  if (typeof value === 'object') return asObject(value) ?? 'unreadable';
  if (typeof value !== 'string') return 'unreadable';
  try {
    const parsed = JSON.parse(value) as unknown;
    return asObject(parsed) ?? 'unreadable';
  } catch {
    return 'unreadable';
  }
}

const MONTHS: Readonly<Record<string, number>> = {
  janvier: 1, fevrier: 2, mars: 3, avril: 4, mai: 5, juin: 6, juillet: 7, aout: 8, septembre: 9, octobre: 10, novembre: 11, decembre: 12,
};

/** `YYYY-MM-DD` from an ISO date, `DD/MM/YYYY`, or a French date in words ("10 décembre 2009", "1er mars 2010"); null otherwise. */
export function frenchDate(value: unknown): string | null {
  const text = str(value, 100);
  if (!text) return null;
  const iso = isoDate(text);
  if (iso) return iso;
  const m = /^(\d{1,2})(?:er)?\s+([a-zéèêûôîç]+)\s+(\d{4})$/i.exec(text.trim());
  if (!m) return null;
  const month = MONTHS[fold(m[2] as string)];
  if (!month) return null;
  return isoDate(`${m[3]}-${String(month).padStart(2, '0')}-${(m[1] as string).padStart(2, '0')}`) ?? null;
}

const frenchDay = (iso: string) => iso.split('-').reverse().join('/');

/** A text without the telephone numbers, e-mail and web addresses it may hold (the shared patterns), and whether it held any. */
export function withoutContacts(text: string | null): { text: string | null; removed: boolean } {
  if (!text) return { text, removed: false };
  const { text: out, masked } = maskContactDetails(text, '');
  if (!masked) return { text, removed: false };
  const tidy = out
    .replace(/\s{2,}/g, ' ')
    .replace(/\s+([,.])/g, '$1')
    .replace(/([,;])(\s*[,;.])+/g, '$1')
    .replace(/[\s,;]+$/, '')
    .trim();
  return { text: tidy || null, removed: true };
}

/** The SIRENs of `registre` (a list of spaced and unspaced forms, or a comma-separated text in v1 answers), unique, in order. */
export function registrySirens(registre: unknown): string[] {
  const items = Array.isArray(registre) ? registre : typeof registre === 'string' ? registre.split(',') : [];
  const out: string[] = [];
  for (const item of items) {
    const digits = String(item ?? '').replace(/\D/g, '');
    if (digits.length === 9 && !out.includes(digits)) out.push(digits);
  }
  return out;
}

function departementOf(raw: Raw): string | null {
  const dep = str(raw.numerodepartement, 10)?.toUpperCase() ?? null;
  if (dep) {
    const padded = /^\d$/.test(dep) ? `0${dep}` : dep;
    if (DEPARTEMENT_CODES.has(padded)) return padded;
  }
  const fromCp = departementOfPostalCode(str(raw.cp, 10));
  return fromCp && DEPARTEMENT_CODES.has(fromCp) ? fromCp : null;
}

function familyOf(raw: Raw): string | null {
  const code = str(raw.familleavis, 40);
  if (code) return code.toLowerCase();
  const label = str(raw.familleavis_lib, 200);
  return label ? (FAMILY_BY_LABEL.get(fold(label)) ?? null) : null;
}

/** What the act, a modification, a striking-off or a filing of accounts says, in one French sentence. */
function detailText(acte: Raw | null, modifications: Raw | null, radiation: Raw | null, depot: Raw | null, establishments: Raw[]): string | null {
  const parts: string[] = [];
  if (acte) {
    const category = str(asObject(acte.creation)?.categorieCreation) ?? str(asObject(acte.immatriculation)?.categorieImmatriculation) ?? str(asObject(acte.vente)?.categorieVente);
    if (category) parts.push(category);
    const descriptif = str(acte.descriptif);
    if (descriptif) parts.push(descriptif);
    const immatriculation = frenchDate(acte.dateImmatriculation);
    if (immatriculation) parts.push(`immatriculation le ${frenchDay(immatriculation)}`);
    const debut = frenchDate(acte.dateCommencementActivite);
    if (debut) parts.push(`début d'activité le ${frenchDay(debut)}`);
    const effet = str(asObject(acte.vente)?.dateEffet, 100);
    if (effet) parts.push(`date d'effet : ${frenchDate(effet) ? frenchDay(frenchDate(effet) as string) : effet}`);
  }
  for (const e of establishments) {
    const origine = str(e.origineFonds, 1000);
    if (origine && origine.toLowerCase() !== 'création') parts.push(origine);
  }
  if (modifications) {
    const descriptif = str(modifications.descriptif);
    if (descriptif) parts.push(descriptif);
  }
  if (radiation) {
    if (str(radiation.radiationPM) === 'O') parts.push('Radiation de la personne morale');
    const cessation = frenchDate(asObject(radiation.radiationPP)?.dateCessationActivitePP);
    if (cessation) parts.push(`cessation d'activité le ${frenchDay(cessation)}`);
    const commentaire = str(radiation.commentaire);
    if (commentaire) parts.push(commentaire);
    if (!parts.length) parts.push('Radiation du registre');
  }
  if (depot) {
    const type = str(depot.typeDepot, 500);
    const cloture = frenchDate(depot.dateCloture);
    if (type || cloture) parts.push(`${type ?? 'Dépôt des comptes'}${cloture ? `, exercice clos le ${frenchDay(cloture)}` : ''}`);
  }
  const text = parts
    .map((p) => p.trim().replace(/[.;,]+$/, ''))
    .filter(Boolean)
    .join(' ; ');
  return text ? text.slice(0, 10_000) : null;
}

export const UNREADABLE_NOTE = (field: string) => `champ « ${field} » illisible (JSON invalide), annonce gardée sans lui`;
export const CONTACT_NOTE = 'téléphone, courriel ou site web retiré d’un texte de l’annonce';

export function mapAnnouncement(r: Raw, now: string): Mapped<AnnouncementRow> {
  if (!r || typeof r !== 'object' || Array.isArray(r)) return { skip: 'enregistrement qui n’est pas un objet' };
  const id = str(r.id, 40);
  if (!id) return { skip: 'identifiant de l’annonce (« id ») absent' };
  const date = isoDate(str(r.dateparution, 40));
  if (!date) return { skip: `date de parution (« dateparution ») absente ou illisible (${String(r.dateparution ?? '')})` };

  const notes: string[] = [];
  const unreadable: string[] = [];
  const details = {} as Record<(typeof DETAIL_FIELDS)[number], Raw | null>;
  for (const field of DETAIL_FIELDS) {
    const value = detailField(r[field]);
    if (value === 'unreadable') {
      unreadable.push(field);
      notes.push(UNREADABLE_NOTE(field));
      details[field] = null;
    } else details[field] = value;
  }

  const persons = asList(details.listepersonnes?.personne);
  const person = persons[0] ?? null;
  const typePersonne = str(person?.typePersonne, 10)?.toLowerCase() ?? null;
  const kind = typePersonne === 'pm' || typePersonne === 'pp' ? typePersonne : null;
  // A natural person: the trade name only. Unknown: `commercant`, unless it reads as
  // "NOM, Prénom" (a natural person's way of being published), which is never kept.
  const commercant = str(r.commercant, 1000);
  const denomination =
    kind === 'pp'
      ? str(person?.nomCommercial, 1000)
      : kind === 'pm'
        ? (str(person?.denomination, 1000) ?? commercant)
        : commercant && !commercant.includes(',')
          ? commercant
          : null;
  const establishments = asList(details.listeetablissements?.etablissement);
  let activite = str(person?.activite) ?? establishments.map((e) => str(e.activite)).find((a) => a !== null) ?? null;
  let detail = detailText(details.acte, details.modificationsgenerales, details.radiationaurcs, details.depot, establishments);
  const cleanActivite = withoutContacts(activite);
  const cleanDetail = withoutContacts(detail);
  activite = cleanActivite.text;
  detail = cleanDetail.text;
  if (cleanActivite.removed || cleanDetail.removed) notes.push(CONTACT_NOTE);

  const sirens = registrySirens(r.registre);
  for (const p of persons) {
    const number = String(asObject(p.numeroImmatriculation)?.numeroIdentification ?? '').replace(/\D/g, '');
    if (number.length === 9 && !sirens.includes(number)) sirens.push(number);
  }
  const departement = departementOf(r);
  const famille = familyOf(r);
  const jugement = details.jugement;
  const numero = Number(r.numeroannonce);
  const row: AnnouncementRow = {
    id,
    bulletin: str(r.publicationavis, 1) ?? (/^[ABC]/.test(id) ? id[0]! : null),
    numero_parution: str(r.parution, 20),
    numero_annonce: r.numeroannonce !== undefined && r.numeroannonce !== null && r.numeroannonce !== '' && Number.isInteger(numero) ? numero : null,
    date_parution: date,
    famille,
    famille_libelle: str(r.familleavis_lib, 200) ?? (famille ? (BODACC_FAMILIES[famille] ?? null) : null),
    type_avis: str(r.typeavis, 40),
    type_avis_libelle: str(r.typeavis_lib, 200),
    departement,
    departement_nom: str(r.departement_nom_officiel, 200) ?? (departement ? (DEPARTEMENT_NAMES.get(departement) ?? null) : null),
    ville: str(r.ville, 200),
    code_postal: str(r.cp, 10),
    tribunal: str(r.tribunal, 500),
    type_personne: kind,
    denomination,
    forme_juridique: kind === 'pm' ? str(person?.formeJuridique, 500) : null,
    activite,
    sirens: JSON.stringify(sirens.slice(0, 20)),
    jugement_famille: jugement ? str(jugement.famille, 500) : null,
    jugement_nature: jugement ? str(jugement.nature, 1000) : null,
    jugement_date: jugement ? frenchDate(jugement.date) : null,
    detail,
    details_illisibles: unreadable.join(','),
    ingested_at: now,
    updated_at: now,
  };
  return notes.length ? { row, notes } : { row };
}

export const bodacc: Importer<Raw, AnnouncementRow> = {
  name: 'bodacc',
  input: { unit: 'enregistrement', layouts: JSON_LAYOUTS },
  read: (stream: Readable) => jsonRecords(stream) as AsyncIterable<RawRecord<Raw>>,
  map: mapAnnouncement,
  sortKey: (row) => row.id,
  async write(trx, rows) {
    const { applied, ...result } = await upsertRows(trx, 'announcements', 'id', withAnnouncementDocuments(trx, rows), { keepOnUpdate: ['ingested_at'] });
    await reindexAnnouncements(trx, applied);
    // The SIRENs of each announcement written, replaced (a corrected record may cite others).
    const ids = [...new Set(applied.map((r) => r.id))];
    await deleteWhereIn(trx, 'announcement_sirens', 'announcement_id', ids);
    const last = new Map(applied.map((r) => [r.id, r]));
    const links = [...last.values()].flatMap((r) =>
      (JSON.parse(r.sirens) as string[]).map((siren) => ({ announcement_id: r.id, siren, date_parution: r.date_parution, famille: r.famille })),
    );
    await insertIgnoring(trx, 'announcement_sirens', ['announcement_id', 'siren'], links);
    return result;
  },
};
