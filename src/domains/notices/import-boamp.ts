// BOAMP open-data notices (JSON export). The full notice in `donnees` is read for its CPV
// codes only: the buyer's contact inside it is never stored, nor the notice's web page.
import type { Readable } from 'node:stream';
import { normaliseCpv } from '../reference/lists.js';
import { reindexNotices } from './search-index.js';
import { foldText } from '../../platform/search/text-fold.js';
import { jsonRecords, JSON_LAYOUTS } from '../../import/records.js';
import type { Importer, Mapped } from '../../import/importer.js';
import type { NoticeRow } from './rows.js';
import { isoDate, stableUuid } from '../../import/fields.js';
import { insertIgnoring, upsertRows } from '../../import/upsert.js';

type Raw = Record<string, unknown>;


const str = (v: unknown) => (typeof v === 'string' && v.trim() ? v.trim() : null);
const list = (v: unknown): string[] => (Array.isArray(v) ? v.map((x) => String(x).trim()).filter(Boolean) : typeof v === 'string' && v.trim() ? [v.trim()] : []);

/** Every CPV code found in the notice's full text, the principal one first. */
export function cpvCodesOf(donnees: unknown): string[] {
  let parsed: unknown = donnees;
  if (typeof donnees === 'string') {
    try {
      parsed = JSON.parse(donnees);
    } catch {
      return [];
    }
  }
  const principal: string[] = [];
  const others: string[] = [];
  const walk = (node: unknown, key: string) => {
    if (typeof node === 'string') {
      if (/CPV|PRINCIPAL|SECONDAIRE/i.test(key)) {
        const cpv = normaliseCpv(node);
        if (cpv) (/PRINCIPAL/i.test(key) ? principal : others).push(cpv);
      }
      return;
    }
    if (Array.isArray(node)) return node.forEach((n) => walk(n, key));
    if (node && typeof node === 'object') for (const [k, v] of Object.entries(node)) walk(v, /CPV/i.test(key) ? `${key}.${k}` : k);
  };
  walk(parsed, '');
  return [...new Set([...principal, ...others])];
}

export const boamp: Importer<Raw, NoticeRow> = {
  name: 'boamp',
  input: { unit: 'enregistrement', layouts: JSON_LAYOUTS },
  read: (stream: Readable) => jsonRecords(stream) as AsyncIterable<{ position: number; value: Raw } | { position: number; error: string }>,
  map(r, now): Mapped<NoticeRow> {
    if (!r || typeof r !== 'object') return { skip: 'enregistrement qui n’est pas un objet' };
    const record = ((r as { fields?: Raw }).fields ?? r) as Raw;
    const idweb = str(record.idweb);
    if (!idweb) return { skip: 'identifiant idweb absent' };
    const objet = str(record.objet);
    if (!objet) return { skip: `objet absent (${idweb})` };
    const parution = isoDate(str(record.dateparution));
    if (parution === null) return { skip: `date de parution illisible (${String(record.dateparution)})` };
    const limiteRaw = str(record.datelimitereponse);
    const limiteDate = limiteRaw ? new Date(limiteRaw) : null;
    if (limiteDate && Number.isNaN(limiteDate.getTime())) return { skip: `date limite illisible (${limiteRaw})` };
    const acheteur = str(record.nomacheteur);
    const cpvCodes = cpvCodesOf(record.donnees);
    return {
      row: {
        marche_id: stableUuid(`boamp:${idweb}`),
        annonce_id: idweb,
        source: 'boamp',
        objet,
        acheteur_nom: acheteur,
        buyer_id: acheteur ? `nom:${foldText(acheteur)}` : null,
        date_parution: parution ?? null,
        date_limite: limiteDate ? limiteDate.toISOString() : null,
        departements: [...new Set(list(record.code_departement).map((d) => d.toUpperCase().padStart(2, '0')))],
        types_marche: list(record.type_marche),
        nature: str(record.nature),
        nature_libelle: str(record.nature_libelle),
        procedure_libelle: str(record.procedure_libelle),
        famille: str(record.famille),
        etat: str(record.etat),
        cpv: cpvCodes[0] ?? null,
        cpv_codes: cpvCodes,
        ingested_at: now,
        updated_at: now,
      },
    };
  },
  async write(trx, rows, now) {
    const buyers = new Map<string, string>();
    for (const r of rows) if (r.buyer_id && r.acheteur_nom) buyers.set(r.buyer_id, r.acheteur_nom);
    await insertIgnoring(trx, 'buyers', 'id', [...buyers].map(([id, nom]) => ({ id, nom, siret: null, ingested_at: now })));
    const { applied: _applied, ...result } = await upsertRows(
      trx,
      'notices',
      'marche_id',
      rows.map((r) => ({ ...r, departements: JSON.stringify(r.departements), types_marche: JSON.stringify(r.types_marche), cpv_codes: JSON.stringify(r.cpv_codes) })),
      { keepOnUpdate: ['ingested_at'] },
    );
    await reindexNotices(trx, rows);
    const ids = rows.map((r) => r.marche_id);
    for (let i = 0; i < ids.length; i += 900) await trx('notice_departements').whereIn('marche_id', ids.slice(i, i + 900)).delete();
    const links = rows.flatMap((r) => r.departements.map((d) => ({ marche_id: r.marche_id, departement: d })));
    await insertIgnoring(trx, 'notice_departements', ['marche_id', 'departement'], links);
    return result;
  },
};
