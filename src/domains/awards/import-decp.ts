// DECP awarded contracts (JSON), 2019 format ({"marches": […]}) and 2024 format
// ({"marches": {"marche": […]}}, winners wrapped in `titulaire`). The amendments
// (`modifications`) are applied in date order, their history kept with the amount and
// duration first notified; a holder whose identifier is not a valid SIRET is kept as
// published (identifier and type) and counted in the import's notes.
import type { Readable } from 'node:stream';
import type { Knex } from 'knex';
import { kindOf } from '../../platform/db/database.js';
import { awardDocument, reindexAwards } from './search-index.js';
import { jsonRecords, JSON_LAYOUTS, type RawRecord } from '../../import/records.js';
import type { Importer, Mapped, WriteCounts } from '../../import/importer.js';
import type { AwardAmendment, AwardRow } from './rows.js';
import { normaliseCpv } from '../reference/lists.js';
import { departementOfCommune, departementOfPostalCode, isoDate, isSiret } from '../../import/fields.js';
import { deleteWhereIn, insertIgnoring, rowsWhereIn, upsertRows } from '../../import/upsert.js';

type Raw = Record<string, unknown>;


const str = (v: unknown) => (typeof v === 'string' && v.trim() ? v.trim() : typeof v === 'number' ? String(v) : null);

function departementOfPlace(code: string | null, type: string | null): string | null {
  if (!code) return null;
  const t = (type ?? '').toLowerCase();
  if (t.includes('département') || t.includes('departement')) return /^(\d{2,3}|2[AB])$/i.test(code) ? code.toUpperCase() : null;
  if (t.includes('postal')) return departementOfPostalCode(code);
  if (t.includes('commune')) return departementOfCommune(code);
  return null;
}

/** A holder as published: its identifier (spaces removed), the type of it, its name. */
interface Holder {
  identifiant: string | null;
  type_identifiant: string | null;
  denomination: string | null;
}

/** The holders of a `titulaires` list: items plain or wrapped in `titulaire`, lists nested or not (2019 pipelines nest them). */
function holdersOf(titulaires: unknown): Holder[] {
  if (!Array.isArray(titulaires)) return [];
  return (titulaires.flat(4) as unknown[])
    .map((t) => (t && typeof t === 'object' ? (((t as { titulaire?: unknown }).titulaire ?? t) as Raw) : null))
    .filter((t): t is Raw => !!t && typeof t === 'object' && !Array.isArray(t))
    .map((t) => ({ identifiant: str(t.id)?.replace(/\s/g, '') ?? null, type_identifiant: str(t.typeIdentifiant), denomination: str(t.denominationSociale) }))
    .filter((h) => h.identifiant || h.denomination);
}

/** A holder with a valid SIRET (the type SIRET, or none given). */
const hasSiret = (h: Holder) => (h.type_identifiant ?? 'SIRET').toUpperCase() === 'SIRET' && isSiret(h.identifiant ?? undefined);

/** Why a holder without a valid SIRET is kept as published, for the import's summary. */
export const HOLDER_KEPT_NOTE = 'titulaire sans SIRET valide gardé tel que publié (identifiant et type)';

function splitHolders(holders: Holder[]): Pick<AwardRow, 'winners' | 'titulaires_autres'> {
  const winners = new Map<string, { siret: string; denomination: string | null }>();
  for (const h of holders.filter(hasSiret)) winners.set(h.identifiant as string, { siret: h.identifiant as string, denomination: h.denomination });
  return { winners: [...winners.values()], titulaires_autres: holders.filter((h) => !hasSiret(h)) };
}

const amount = (v: unknown): number | null | undefined => {
  if (v === undefined || v === null || v === '') return undefined;
  const n = Number(v);
  return Number.isFinite(n) && n >= 0 ? n : null;
};

/**
 * The amendments (`modifications`), oldest first: 2019 items are the amendment itself,
 * 2024 items wrap it in `modification`. Each may set a new amount, a new duration, new holders.
 */
function amendmentsOf(modifications: unknown): { amendment: AwardAmendment; holders: Holder[] | null }[] {
  if (!Array.isArray(modifications)) return [];
  const out = modifications
    .map((m) => (m && typeof m === 'object' ? (((m as { modification?: unknown }).modification ?? m) as Raw) : null))
    .filter((m): m is Raw => !!m && typeof m === 'object' && !Array.isArray(m))
    .map((m, i) => {
      const holders = Array.isArray(m.titulaires) ? holdersOf(m.titulaires) : null;
      const date = isoDate(str(m.dateNotificationModification ?? m.dateSignatureModification ?? m.datePublicationDonneesModification)) ?? null;
      const duree = amount(m.dureeMois);
      return {
        order: i,
        amendment: {
          id: str(m.id),
          date,
          objet: str(m.objetModification),
          montant: amount(m.montant) ?? null,
          duree_mois: duree === undefined || duree === null ? null : Math.round(duree),
          titulaires: holders?.length ? holders.map((h) => ({ identifiant: h.identifiant, denomination: h.denomination })) : null,
        },
        holders: holders?.length ? holders : null,
      };
    });
  // By date, then by their order in the file (an amendment without a date stays in its place among its neighbours).
  out.sort((a, b) => (a.amendment.date && b.amendment.date && a.amendment.date !== b.amendment.date ? (a.amendment.date < b.amendment.date ? -1 : 1) : a.order - b.order));
  return out.map(({ amendment, holders }) => ({ amendment, holders }));
}

/**
 * A concession contract (2019: `_type` « Contrat de concession » in `marches`; 2024: an item
 * of `contrat-concession`, with `autoriteConcedante`). The 2024 pipelines also write empty
 * concession keys (`autoriteConcedante: ""`) on plain contracts: only a filled one counts.
 */
function isConcession(r: Raw): boolean {
  if (typeof r._type === 'string' && r._type.toLowerCase().includes('concession')) return true;
  const authority = r.autoriteConcedante;
  return !!authority && typeof authority === 'object' && !r.acheteur;
}

/** Why a concession is skipped: the awards have no field for its authority, value, signature or holders. */
export const CONCESSION_SKIPPED =
  'contrat de concession non importé : autorité concédante, valeur globale, date de signature et concessionnaires n’ont pas de champ dans les attributions';

export const decp: Importer<Raw, AwardRow> = {
  name: 'decp',
  input: { unit: 'enregistrement', layouts: JSON_LAYOUTS },
  // DECP files made with pandas carry bare NaN (decp-processing's 2024 files): read as null.
  read: (stream: Readable) => jsonRecords(stream, { nonFiniteAsNull: true }) as AsyncIterable<RawRecord<Raw>>,
  map(r, now): Mapped<AwardRow> {
    if (!r || typeof r !== 'object') return { skip: 'enregistrement qui n’est pas un objet' };
    // Never an award without buyer, amount, date or winner: a concession is said and skipped.
    if (isConcession(r)) return { skip: CONCESSION_SKIPPED };
    const id = str(r.id);
    if (!id) return { skip: 'identifiant du marché absent' };
    const acheteur = (r.acheteur ?? {}) as Raw;
    // Some pipelines flatten the buyer's id into an `acheteur.id` key.
    const acheteurId = str(acheteur.id ?? r['acheteur.id'])?.replace(/\s/g, '') ?? null;
    // Every DECP contract has its buyer and notification date: a record without them is not
    // one (a BOAMP notice given as DECP has an `id` and an `objet` too): never an empty award.
    if (!acheteurId && !str(acheteur.nom)) return { skip: 'acheteur absent : pas un marché au format DECP' };
    const notification = isoDate(str(r.dateNotification));
    if (notification === undefined) return { skip: 'date de notification absente : pas un marché au format DECP' };
    if (notification === null) return { skip: `date de notification illisible (${String(r.dateNotification)})` };
    const montant = r.montant === undefined || r.montant === null || r.montant === '' ? null : Number(r.montant);
    if (montant !== null && !Number.isFinite(montant)) return { skip: `montant illisible (${String(r.montant)})` };
    const duree = r.dureeMois === undefined || r.dureeMois === null || r.dureeMois === '' ? null : Number(r.dureeMois);
    const dureeInitiale = duree !== null && Number.isFinite(duree) ? Math.round(duree) : null;
    const lieu = (r.lieuExecution ?? {}) as Raw;
    const lieuCode = str(lieu.code);
    const lieuType = str(lieu.typeCode);
    const cpvRaw = str(r.codeCPV);
    // The amendments in force: the last amount, duration and holders each one sets.
    let holders = holdersOf(r.titulaires);
    let current = montant;
    let currentDuree = dureeInitiale;
    const amendments = amendmentsOf(r.modifications);
    for (const { amendment, holders: named } of amendments) {
      if (amendment.montant !== null) current = amendment.montant;
      if (amendment.duree_mois !== null) currentDuree = amendment.duree_mois;
      if (named) holders = named;
    }
    const split = splitHolders(holders);
    const notes: string[] = [];
    if (split.titulaires_autres.some((h) => h.identifiant)) notes.push(HOLDER_KEPT_NOTE);
    if (amendments.length) notes.push('modifications (avenants) appliquées, historique gardé');
    const row: AwardRow = {
      award_key: `${acheteurId ?? 'inconnu'}:${id}`,
      id,
      source: 'decp',
      acheteur_siret: isSiret(acheteurId ?? undefined) ? acheteurId : null,
      acheteur_nom: str(acheteur.nom),
      buyer_id: acheteurId,
      objet: str(r.objet),
      cpv: cpvRaw ? normaliseCpv(cpvRaw) : null,
      procedure: str(r.procedure),
      nature: str(r.nature),
      lieu_code: lieuCode,
      lieu_type: lieuType,
      departement: departementOfPlace(lieuCode, lieuType),
      montant: current,
      montant_initial: montant,
      date_notification: notification,
      duree_mois: currentDuree,
      duree_mois_initiale: dureeInitiale,
      forme_prix: str(r.formePrix),
      ...split,
      modifications: amendments.map((a) => a.amendment),
      ingested_at: now,
      updated_at: now,
    };
    return notes.length ? { row, notes } : { row };
  },
  write: (trx, rows, now) => writeAwards(trx, rows, now),
};

/** The directory's name of these SIRENs (SIRENE units imported), for buyers and winners published without one. */
export async function directoryNames(trx: Knex, sirens: readonly string[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const unique = [...new Set(sirens)].filter((s) => /^\d{9}$/.test(s));
  const rows = await rowsWhereIn<Record<string, string | null>>(trx, 'companies', 'siren', unique, ['siren', 'denomination', 'denomination_usuelle', 'nom_personne'], { unit_known: true });
  for (const r of rows) {
    const name = r.denomination ?? r.denomination_usuelle ?? r.nom_personne;
    if (name) out.set(r.siren as string, name);
  }
  return out;
}

/** What an award's search document is made of: its object, its buyer's name, its winners'. */
const searchText = (r: AwardRow & { searchBuyer: string | null }) => ({ award_key: r.award_key, objet: r.objet, acheteur_nom: r.searchBuyer, winners: [...r.winners, ...r.titulaires_autres] });

/**
 * Writes awards (DECP, or a BOAMP award notice's results): their buyers, the awards, their
 * winners and search documents. A buyer or winner published without a name takes the
 * directory's, so that the search finds it by name.
 */
export async function writeAwards(trx: Knex.Transaction, rows: AwardRow[], now: string): Promise<WriteCounts> {
  const names = await directoryNames(trx, [...rows.map((r) => r.acheteur_siret?.slice(0, 9) ?? ''), ...rows.flatMap((r) => r.winners.map((w) => w.siret.slice(0, 9)))]);
  const named = rows.map((r) => ({
    ...r,
    winners: r.winners.map((w) => ({ ...w, denomination: w.denomination ?? names.get(w.siret.slice(0, 9)) ?? null })),
    searchBuyer: r.acheteur_nom ?? (r.acheteur_siret ? (names.get(r.acheteur_siret.slice(0, 9)) ?? null) : null),
  }));
  const buyers = new Map<string, { nom: string; siret: string | null }>();
  for (const r of named) if (r.buyer_id) buyers.set(r.buyer_id, { nom: r.searchBuyer ?? r.buyer_id, siret: r.acheteur_siret });
  await insertIgnoring(trx, 'buyers', 'id', [...buyers].map(([id, b]) => ({ id, nom: b.nom, siret: b.siret, ingested_at: now })));
  // A buyer first known by its SIRET alone takes its name when one comes. PostgreSQL: one
  // statement for the batch (a statement per buyer, a round trip each, was 5,497 statements
  // and 18 % of the BOAMP import's time at national factor 0.02); SQLite runs them in-process.
  const naming = [...buyers].filter(([id, b]) => b.nom !== id);
  if (kindOf(trx) === 'postgres') {
    if (naming.length)
      await trx.raw('update buyers set nom = u.nom from unnest(?::text[], ?::text[]) as u(id, nom) where buyers.id = u.id and buyers.nom = u.id', [
        naming.map(([id]) => id),
        naming.map(([, b]) => b.nom),
      ]);
  } else for (const [id, b] of naming) await trx('buyers').where({ id, nom: id }).update({ nom: b.nom });
  const { applied: _applied, ...result } = await upsertRows(
    trx,
    'awards',
    'award_key',
    rows.map(({ winners: _w, titulaires_autres, modifications, ...r }, i) => ({
      ...r,
      titulaires_autres: JSON.stringify(titulaires_autres),
      modifications: JSON.stringify(modifications),
      ...awardDocument(trx, searchText(named[i] as (typeof named)[number])),
    })),
    { keepOnUpdate: ['ingested_at'] },
  );
  await reindexAwards(trx, named.map(searchText));
  const keys = rows.map((r) => r.award_key);
  await deleteWhereIn(trx, 'award_winners', 'award_key', keys);
  const winners = rows.flatMap((r) => r.winners.map((w) => ({ award_key: r.award_key, siret: w.siret, siren: w.siret.slice(0, 9), denomination: w.denomination })));
  await insertIgnoring(trx, 'award_winners', ['award_key', 'siret'], winners);
  return result;
}
