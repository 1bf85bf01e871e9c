// ADEME list of RGE-certified companies: the CSV export and the data-fair API's answer
// ({"total", "next", "results": [{…}]}), one row per SIRET and qualification, with the same
// field names. Rows of one certification (SIRET, domain, body) are grouped in `write`, also
// across batches of one import: the widest period and the qualifications together. Its
// contact columns (telephone, email, site_internet) are never read: nothing of them is stored.
import { Readable } from 'node:stream';
import type { Knex } from 'knex';
import { csvRecords, jsonRecords } from '../../import/records.js';
import type { Importer, Mapped, RawRecord } from '../../import/importer.js';
import type { RgeRow } from './rows.js';
import { isoDate, isSiret } from '../../import/fields.js';
import { upsertRows } from '../../import/upsert.js';

/** A CSV row (text) or an API result (text, numbers, booleans, null). */
type Raw = Record<string, unknown>;

/** The layouts understood, for the message when nothing can be read. */
export const RGE_LAYOUTS =
  'export CSV de la liste RGE (séparateur « , » ou « ; », en-tête siret,nom_entreprise,…,domaine,organisme,lien_date_debut,lien_date_fin), réponse JSON de l’API data-fair de l’ADEME ({"total", "next", "results": […]}, un tableau […] ou un objet par ligne, mêmes noms de champs)';

const text = (v: unknown) => (typeof v === 'string' ? v.trim() || null : typeof v === 'number' ? String(v) : null);

/** The first non-blank byte tells JSON (`{`, `[`) from the CSV export; the bytes read are given back. */
async function* rgeRecords(stream: Readable): AsyncGenerator<RawRecord<Raw>> {
  const iterator = stream[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  const head: Buffer[] = [];
  let first: number | undefined;
  while (first === undefined) {
    const next = await iterator.next();
    if (next.done) break;
    head.push(next.value);
    const t = Buffer.concat(head).toString('utf8').replace(/^\uFEFF/, '').trimStart();
    if (t.length) first = t.charCodeAt(0);
  }
  async function* all(): AsyncGenerator<Buffer> {
    yield* head;
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) yield next.value;
  }
  const source = Readable.from(all());
  if (first === 0x7b || first === 0x5b) yield* jsonRecords(source) as AsyncIterable<RawRecord<Raw>>;
  else {
    // The ADEME export is comma-separated; some mirrors use semicolons: the header tells.
    const peek = Buffer.concat(head).toString('utf8').split('\n')[0] ?? '';
    const delimiter = (peek.match(/;/g)?.length ?? 0) > (peek.match(/,/g)?.length ?? 0) ? ';' : ',';
    yield* csvRecords(source, delimiter);
  }
}

/** Qualifications of one certification, joined (the column holds 300 characters). */
const joinNames = (a: string | null, b: string | null) => {
  const all = [...new Set([...(a ?? '').split(' ; '), ...(b ?? '').split(' ; ')].filter(Boolean))];
  return all.length ? all.join(' ; ').slice(0, 300) : null;
};

/** Rows of one certification (SIRET, domain, body) merged: earliest start, latest end, qualifications together. */
function merge(a: RgeRow, b: RgeRow): RgeRow {
  const min = (x: string | null, y: string | null) => (x && y ? (x < y ? x : y) : null);
  const max = (x: string | null, y: string | null) => (x && y ? (x > y ? x : y) : null);
  return {
    ...a,
    meta_domaine: a.meta_domaine ?? b.meta_domaine,
    code_qualification: joinNames(a.code_qualification, b.code_qualification)?.slice(0, 50) ?? null,
    nom_qualification: joinNames(a.nom_qualification, b.nom_qualification),
    date_debut: min(a.date_debut, b.date_debut),
    // No end date is no end: it wins.
    date_fin: max(a.date_fin, b.date_fin),
  };
}

const keyOf = (r: RgeRow) => `${r.siret}\u0000${r.domaine}\u0000${r.organisme}`;

export const rge: Importer<Raw, RgeRow> = {
  name: 'rge',
  input: { unit: 'enregistrement', layouts: RGE_LAYOUTS },
  read: (stream: Readable) => rgeRecords(stream),
  map(r, now): Mapped<RgeRow> {
    if (!r || typeof r !== 'object' || Array.isArray(r)) return { skip: 'enregistrement qui n’est pas un objet' };
    const siret = (text(r.siret) ?? '').replace(/\s/g, '');
    if (!isSiret(siret)) return { skip: `SIRET absent ou invalide (${text(r.siret) ?? ''})` };
    const domaine = text(r.domaine);
    const organisme = text(r.organisme);
    if (!domaine || !organisme) return { skip: 'domaine ou organisme absent' };
    const debut = isoDate(text(r.lien_date_debut));
    const fin = isoDate(text(r.lien_date_fin));
    if (debut === null || fin === null) return { skip: `date illisible (${text(r.lien_date_debut) ?? ''} / ${text(r.lien_date_fin) ?? ''})` };
    return {
      row: {
        siret,
        domaine: domaine.slice(0, 300),
        organisme: organisme.slice(0, 100),
        meta_domaine: text(r.meta_domaine)?.slice(0, 300) ?? null,
        code_qualification: text(r.code_qualification)?.slice(0, 50) ?? null,
        nom_qualification: text(r.nom_qualification)?.slice(0, 300) ?? null,
        date_debut: debut ?? null,
        date_fin: fin ?? null,
        ingested_at: now,
        updated_at: now,
      },
    };
  },
  async write(trx, rows) {
    const grouped = new Map<string, RgeRow>();
    for (const r of rows) {
      const k = keyOf(r);
      const seen = grouped.get(k);
      grouped.set(k, seen ? merge(seen, r) : r);
    }
    // Rows of the same import written by an earlier batch (same `updated_at`): merged with them, not replaced.
    const merged = await withEarlierBatches(trx, [...grouped.values()]);
    const { applied: _applied, ...counts } = await upsertRows(trx, 'rge_certifications', ['siret', 'domaine', 'organisme'], merged, { keepOnUpdate: ['ingested_at'] });
    return counts;
  },
  sortKey: (row) => row.siret,
};

async function withEarlierBatches(trx: Knex.Transaction, rows: RgeRow[]): Promise<RgeRow[]> {
  const sirets = [...new Set(rows.map((r) => r.siret))];
  const stored = new Map<string, RgeRow>();
  for (let i = 0; i < sirets.length; i += 900) {
    for (const s of (await trx('rge_certifications').whereIn('siret', sirets.slice(i, i + 900)).select('*')) as RgeRow[]) stored.set(keyOf(s), s);
  }
  return rows.map((r) => {
    const s = stored.get(keyOf(r));
    return s && s.updated_at === r.updated_at ? { ...merge(s, r), ingested_at: s.ingested_at } : r;
  });
}
