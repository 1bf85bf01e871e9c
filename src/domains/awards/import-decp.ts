// DECP awarded contracts (JSON), 2019 format ({"marches": […]}) and 2024 format
// ({"marches": {"marche": […]}}, winners wrapped in `titulaire`).
import type { Readable } from 'node:stream';
import { reindexAwards } from './search-index.js';
import { jsonRecords, JSON_LAYOUTS, type RawRecord } from '../../import/records.js';
import type { Importer, Mapped } from '../../import/importer.js';
import type { AwardRow } from './rows.js';
import { normaliseCpv } from '../reference/lists.js';
import { departementOfCommune, departementOfPostalCode, isoDate, isSiret } from '../../import/fields.js';
import { insertIgnoring, upsertRows } from '../../import/upsert.js';

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

function winnersOf(titulaires: unknown): { siret: string; denomination: string | null }[] {
  if (!Array.isArray(titulaires)) return [];
  return titulaires
    .map((t) => ((t as { titulaire?: Raw }).titulaire ?? t) as Raw)
    .filter((t) => String(t.typeIdentifiant ?? 'SIRET').toUpperCase() === 'SIRET' && isSiret(str(t.id)?.replace(/\s/g, '') ?? undefined))
    .map((t) => ({ siret: (str(t.id) as string).replace(/\s/g, ''), denomination: str(t.denominationSociale) }));
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
    const lieu = (r.lieuExecution ?? {}) as Raw;
    const lieuCode = str(lieu.code);
    const lieuType = str(lieu.typeCode);
    const cpvRaw = str(r.codeCPV);
    return {
      row: {
        award_key: `${acheteurId ?? 'inconnu'}:${id}`,
        id,
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
        montant,
        date_notification: notification,
        duree_mois: duree !== null && Number.isFinite(duree) ? Math.round(duree) : null,
        forme_prix: str(r.formePrix),
        winners: winnersOf(r.titulaires),
        ingested_at: now,
        updated_at: now,
      },
    };
  },
  async write(trx, rows, now) {
    const buyers = new Map<string, { nom: string; siret: string | null }>();
    for (const r of rows) if (r.buyer_id) buyers.set(r.buyer_id, { nom: r.acheteur_nom ?? r.buyer_id, siret: r.acheteur_siret });
    await insertIgnoring(trx, 'buyers', 'id', [...buyers].map(([id, b]) => ({ id, nom: b.nom, siret: b.siret, ingested_at: now })));
    const { applied: _applied, ...result } = await upsertRows(
      trx,
      'awards',
      'award_key',
      rows.map(({ winners: _w, ...r }) => r),
      { keepOnUpdate: ['ingested_at'] },
    );
    await reindexAwards(trx, rows);
    const keys = rows.map((r) => r.award_key);
    for (let i = 0; i < keys.length; i += 900) await trx('award_winners').whereIn('award_key', keys.slice(i, i + 900)).delete();
    const winners = rows.flatMap((r) => r.winners.map((w) => ({ award_key: r.award_key, siret: w.siret, siren: w.siret.slice(0, 9), denomination: w.denomination })));
    await insertIgnoring(trx, 'award_winners', ['award_key', 'siret'], winners);
    return result;
  },
};
