// BOAMP open-data notices (JSON export or API answer). The full notice in `donnees` is read
// for its CPV codes, lots, buyer SIRET, deadline, estimated value, procedure and an award
// notice's results (donnees.ts): the buyer's contact inside it is never stored, nor the
// notice's web page. A later notice of the same procedure (`annonce_lie`: a correction or a
// cancellation) changes the notice it names: its deadline, its state, and when and why it changed.
import type { Readable } from 'node:stream';
import type { Knex } from 'knex';
import { reindexNotices } from './search-index.js';
import { foldText } from '../../platform/search/text-fold.js';
import { jsonRecords, JSON_LAYOUTS } from '../../import/records.js';
import type { Importer, Mapped } from '../../import/importer.js';
import type { NoticeRow } from './rows.js';
import { readDonnees, type NoticeDetails } from './donnees.js';
import { isoDate, isSiren, isSiret, stableUuid } from '../../import/fields.js';
import { deleteWhereIn, insertIgnoring, rowsWhereIn, upsertRows } from '../../import/upsert.js';
import { kindOf } from '../../platform/db/database.js';
import { writeAwards } from '../awards/import-decp.js';
import type { AwardRow } from '../awards/rows.js';

export { cpvCodesOf } from './donnees.js';

type Raw = Record<string, unknown>;

/** A notice and the awards its results make (an award notice). */
export type BoampRow = NoticeRow & { awards: AwardRow[] };

const str = (v: unknown) => (typeof v === 'string' && v.trim() ? v.trim() : null);
const list = (v: unknown): string[] => (Array.isArray(v) ? v.map((x) => String(x).trim()).filter(Boolean) : typeof v === 'string' && v.trim() ? [v.trim()] : []);

/** An award notice (nature ATTRIBUTION, or an eForms contract award notice). */
const isAwardNotice = (record: Raw, details: NoticeDetails) => /ATTRIBUTION/i.test(`${str(record.nature) ?? ''} ${str(record.nature_categorise) ?? ''}`) || details.form === 'ContractAwardNotice';

/** The awards an award notice's results make: one per lot and winning tender. */
function awardsOf(record: Raw, idweb: string, details: NoticeDetails, notice: Omit<NoticeRow, 'awards'>, now: string): AwardRow[] {
  const results = details.results.length
    ? details.results
    : // A national form: the winners' names the record lists (`titulaire`), without amounts.
      list(record.titulaire).length
      ? [{ lot: null, montant: null, date: null, titulaires: list(record.titulaire).map((nom) => ({ nom, identifiant: null })) }]
      : [];
  return results.map((r, i) => {
    const lot = r.lot ? details.lots.find((l) => l.numero === r.lot) : undefined;
    const winners = r.titulaires.filter((t) => isSiret(t.identifiant ?? undefined)).map((t) => ({ siret: t.identifiant as string, denomination: t.nom }));
    const others = r.titulaires
      .filter((t) => !isSiret(t.identifiant ?? undefined))
      .map((t) => ({ identifiant: t.identifiant, type_identifiant: isSiren(t.identifiant ?? undefined) ? 'SIREN' : t.identifiant ? 'identifiant publié' : null, denomination: t.nom }));
    return {
      award_key: `boamp:${idweb}:${r.lot ?? '-'}:${i + 1}`,
      id: r.lot ? `${idweb} ${r.lot}` : idweb,
      source: 'boamp',
      acheteur_siret: notice.acheteur_siret,
      acheteur_nom: notice.acheteur_nom,
      buyer_id: notice.buyer_id,
      objet: lot?.titre ? `${notice.objet} — ${lot.titre}` : notice.objet,
      cpv: lot?.cpv_codes[0] ?? notice.cpv,
      procedure: notice.procedure_libelle,
      nature: 'Marché',
      lieu_code: notice.departements[0] ?? null,
      lieu_type: notice.departements[0] ? 'Code département' : null,
      departement: notice.departements[0] ?? null,
      montant: r.montant,
      montant_initial: r.montant,
      date_notification: r.date ?? notice.date_parution,
      duree_mois: null,
      duree_mois_initiale: null,
      forme_prix: null,
      winners,
      titulaires_autres: others,
      modifications: [],
      ingested_at: now,
      updated_at: now,
    };
  });
}

export const boamp: Importer<Raw, BoampRow> = {
  name: 'boamp',
  input: { unit: 'enregistrement', layouts: JSON_LAYOUTS },
  read: (stream: Readable) => jsonRecords(stream) as AsyncIterable<{ position: number; value: Raw } | { position: number; error: string }>,
  map(r, now): Mapped<BoampRow> {
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
    const details = readDonnees(record.donnees);
    const acheteur = str(record.nomacheteur) ?? details.buyerName;
    const notes: string[] = [];
    if (record.donnees !== undefined && record.donnees !== null && !details.family) notes.push('« donnees » illisible : CPV, lots et résultats non lus');
    const notice: NoticeRow = {
      marche_id: stableUuid(`boamp:${idweb}`),
      annonce_id: idweb,
      source: 'boamp',
      objet,
      acheteur_nom: acheteur,
      acheteur_siret: details.buyerSiret,
      buyer_id: details.buyerSiret ?? (acheteur ? `nom:${foldText(acheteur)}` : null),
      date_parution: parution ?? null,
      date_limite: limiteDate ? limiteDate.toISOString() : details.deadline,
      departements: [...new Set(list(record.code_departement).map((d) => d.toUpperCase().padStart(2, '0')))],
      types_marche: list(record.type_marche),
      nature: str(record.nature),
      nature_libelle: str(record.nature_libelle),
      procedure_libelle: str(record.procedure_libelle) ?? details.procedure,
      famille: str(record.famille),
      etat: str(record.etat),
      cpv: details.cpvCodes[0] ?? null,
      cpv_codes: details.cpvCodes,
      valeur_estimee: details.estimatedValue,
      lots: details.lots,
      annonces_liees: list(record.annonce_lie).filter((id) => id !== idweb),
      ingested_at: now,
      updated_at: now,
    };
    const awards = isAwardNotice(record, details) ? awardsOf(record, idweb, details, notice, now) : [];
    if (awards.some((a) => a.titulaires_autres.length)) notes.push('titulaire d’un avis d’attribution sans SIRET valide gardé tel que publié');
    const row = { ...notice, awards };
    return notes.length ? { row, notes } : { row };
  },
  async write(trx, rows, now) {
    const buyers = new Map<string, { nom: string; siret: string | null }>();
    for (const r of rows) if (r.buyer_id && r.acheteur_nom) buyers.set(r.buyer_id, { nom: r.acheteur_nom, siret: r.acheteur_siret });
    await insertIgnoring(trx, 'buyers', 'id', [...buyers].map(([id, b]) => ({ id, nom: b.nom, siret: b.siret, ingested_at: now })));
    const { applied: _applied, ...result } = await upsertRows(
      trx,
      'notices',
      'marche_id',
      rows.map(({ awards: _a, ...r }) => ({
        ...r,
        departements: JSON.stringify(r.departements),
        types_marche: JSON.stringify(r.types_marche),
        cpv_codes: JSON.stringify(r.cpv_codes),
        lots: JSON.stringify(r.lots),
        annonces_liees: JSON.stringify(r.annonces_liees),
      })),
      { keepOnUpdate: ['ingested_at'] },
    );
    await reindexNotices(trx, rows);
    await deleteWhereIn(
      trx,
      'notice_departements',
      'marche_id',
      rows.map((r) => r.marche_id),
    );
    const links = rows.flatMap((r) => r.departements.map((d) => ({ marche_id: r.marche_id, departement: d })));
    await insertIgnoring(trx, 'notice_departements', ['marche_id', 'departement'], links);
    await applyCorrections(trx, rows, now);
    const awards = rows.flatMap((r) => r.awards);
    if (awards.length) await writeAwards(trx, awards, now);
    return result;
  },
};

const frenchDate = (iso: string) => iso.slice(0, 10).split('-').reverse().join('/');

/**
 * Records the corrections and cancellations of this batch by the notice they name, then
 * sets each notice they touch (named by this batch, or imported in it) to what all its
 * later notices say: the last deadline given, cancelled when one cancels it. `modifie_le`
 * moves only when what they say changes (a re-import changes nothing), so that the robot
 * reports a change once.
 */
async function applyCorrections(trx: Knex.Transaction, rows: BoampRow[], now: string): Promise<void> {
  const corrections = rows.flatMap((r) =>
    r.annonces_liees.map((annonce_id) => ({
      annonce_id,
      correction_id: r.annonce_id,
      date_parution: r.date_parution,
      // An award notice cites the notice it concludes: kept (the awards that followed it), never a correction.
      kind: /ANNUL/i.test(`${r.etat ?? ''} ${r.nature ?? ''}`) ? 'annulation' : r.awards.length || /ATTRIBUTION/i.test(r.nature ?? '') ? 'attribution' : 'rectificatif',
      date_limite: r.date_limite,
    })),
  );
  if (corrections.length) await upsertRows(trx, 'notice_corrections', ['annonce_id', 'correction_id'], corrections);
  const touched = new Set(corrections.map((c) => c.annonce_id));
  const own = rows.map((r) => r.annonce_id);
  for (const c of await rowsWhereIn<{ annonce_id: string }>(trx, 'notice_corrections', 'annonce_id', own, ['annonce_id'])) touched.add(c.annonce_id);
  const targets = [...touched];
  for (let i = 0; i < targets.length; i += 500) {
    const slice = targets.slice(i, i + 500);
    const notices = (await trx('notices').whereIn('annonce_id', slice).select('annonce_id', 'date_limite', 'etat', 'modifie_par', 'modification')) as Record<string, string | null>[];
    if (!notices.length) continue;
    const all = (await trx('notice_corrections')
      .whereIn('annonce_id', notices.map((n) => n.annonce_id as string))
      .orderBy([{ column: 'date_parution' }, { column: 'correction_id' }])
      .select('annonce_id', 'correction_id', 'date_parution', 'kind', 'date_limite')) as Record<string, string | null>[];
    const updates: NoticeUpdate[] = [];
    for (const n of notices) {
      const mine = all.filter((c) => c.annonce_id === n.annonce_id && c.kind !== 'attribution');
      if (!mine.length) continue;
      const last = mine[mine.length - 1] as Record<string, string | null>;
      const cancel = mine.find((c) => c.kind === 'annulation');
      const deadline = [...mine].reverse().find((c) => c.date_limite)?.date_limite ?? null;
      const changes: Partial<Record<(typeof CORRECTED)[number], string>> = {};
      let what: string;
      if (cancel) {
        what = `avis annulé par l’avis ${cancel.correction_id}${cancel.date_parution ? ` du ${frenchDate(cancel.date_parution)}` : ''}`;
        changes.etat = 'AVIS_ANNULE';
      } else if (deadline) {
        // Said the same way whatever the stored deadline (a re-import of the notice puts its first one back).
        what = `date limite fixée au ${frenchDate(deadline)} par l’avis rectificatif ${last.correction_id}`;
        if (deadline !== n.date_limite) changes.date_limite = deadline;
      } else {
        what = `avis rectifié par l’avis ${last.correction_id}${last.date_parution ? ` du ${frenchDate(last.date_parution)}` : ''}`;
      }
      // A correction's id is part of its table's key: never null.
      const by = (cancel?.correction_id ?? last.correction_id) as string;
      if (what !== n.modification || by !== n.modifie_par) Object.assign(changes, { modification: what.slice(0, 300), modifie_par: by, modifie_le: now });
      if (Object.keys(changes).length) updates.push({ annonce_id: n.annonce_id as string, ...changes, updated_at: now });
    }
    await updateNotices(trx, updates);
  }
}

/** A notice's new values, by its `annonce_id`: only the columns that change (each then not null). */
type NoticeUpdate = { annonce_id: string; updated_at: string } & Partial<Record<(typeof CORRECTED)[number], string>>;
const CORRECTED = ['etat', 'date_limite', 'modification', 'modifie_par', 'modifie_le'] as const;

/**
 * Writes the corrected notices. SQLite: one update per notice (prepared, in-process, cheap).
 * PostgreSQL: one `update … from unnest(…)` for them all, a null keeping the stored value (a
 * corrected value is never null): one statement per notice cost a round trip each, 2,550 of
 * them for 40,000 notices.
 */
async function updateNotices(trx: Knex.Transaction, updates: readonly NoticeUpdate[]): Promise<void> {
  if (!updates.length) return;
  if (kindOf(trx) === 'sqlite') {
    for (const { annonce_id, ...changes } of updates) await trx('notices').where('annonce_id', annonce_id).update(changes);
    return;
  }
  const columns = ['annonce_id', 'updated_at', ...CORRECTED] as const;
  await trx.raw(
    `update notices as n set updated_at = u.updated_at, ${CORRECTED.map((c) => `${c} = coalesce(u.${c}, n.${c})`).join(', ')} ` +
      `from unnest(${columns.map(() => '?::text[]').join(', ')}) as u(${columns.join(', ')}) where n.annonce_id = u.annonce_id`,
    columns.map((c) => updates.map((u) => u[c] ?? null) as Knex.RawBinding),
  );
}
