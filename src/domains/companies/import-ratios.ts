// The « ratios financiers BCE/INPI » open data (dataset `ratios_inpi_bce`): one row per
// company, closing date and kind of accounts, as its CSV export (`;`-separated, starting with
// a UTF-8 BOM, often gzipped) and as Opendatasoft API answers (v1 `records/1.0/search`, whose
// `fields` leave out null fields, as the real samples show; v2.1 `{"total_count", "results"}`).
//
// Kept: the closing date, the kind of accounts (`type_bilan`), turnover, gross margin, EBITDA
// (`ebe`) and net result, as published (odd values included). Accounts whose
// `confidentiality` is not `Public` keep no figure: the record says they are confidential.
import { Readable } from 'node:stream';
import type { Importer, Mapped, RawRecord } from '../../import/importer.js';
import { csvRecords, jsonRecords } from '../../import/records.js';
import { isoDate } from '../../import/fields.js';
import { upsertRows } from '../../import/upsert.js';
import { refreshTurnovers } from './finances.js';

type Raw = Record<string, unknown>;

export interface AccountRow {
  siren: string;
  date_cloture: string;
  type_bilan: string;
  confidentiel: boolean;
  chiffre_affaires: number | null;
  marge_brute: number | null;
  ebe: number | null;
  resultat_net: number | null;
  ingested_at: string;
  updated_at: string;
}

const FIGURES = ['chiffre_d_affaires', 'marge_brute', 'ebe', 'resultat_net'] as const;

/** A published number: a JSON number, or a CSV text (a decimal comma read too); undefined when unreadable. */
function figure(v: unknown): number | null | undefined {
  if (v === undefined || v === null) return null;
  if (typeof v === 'number') return Number.isFinite(v) ? v : undefined;
  if (typeof v !== 'string') return undefined;
  const t = v.trim().replace(/\s/g, '');
  if (!t) return null;
  const n = Number(t.includes('.') ? t : t.replace(',', '.'));
  return Number.isFinite(n) ? n : undefined;
}

/** JSON when the first significant character opens an object or an array, else the CSV export. */
async function* ratiosRecords(stream: Readable): AsyncGenerator<RawRecord<unknown>> {
  const iterator = stream[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  const head: Buffer[] = [];
  let first: string | undefined;
  while (first === undefined) {
    const next = await iterator.next();
    if (next.done) break;
    head.push(next.value);
    const start = Buffer.concat(head).toString('utf8').replace(/^\uFEFF/, '').trimStart();
    if (start) first = start[0];
  }
  async function* all(): AsyncGenerator<Buffer> {
    yield* head;
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) yield next.value;
  }
  const rest = Readable.from(all());
  if (first === '{' || first === '[') yield* jsonRecords(rest);
  else yield* csvRecords(rest, ';');
}

export const ratios: Importer<unknown, AccountRow> = {
  name: 'ratios',
  input: {
    unit: 'enregistrement',
    layouts:
      'export CSV séparé par « ; » (en-tête siren;date_cloture_exercice;chiffre_d_affaires;marge_brute;ebe;…;type_bilan;confidentiality), réponse Opendatasoft v1 {"records": [{"fields": {…}}]} ou v2.1 {"results": […]}',
  },
  read: (stream: Readable) => ratiosRecords(stream),
  map(raw, now): Mapped<AccountRow> {
    if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return { skip: 'enregistrement qui n’est pas un objet' };
    const r = raw as Raw;
    const sirenText = typeof r.siren === 'number' ? String(r.siren).padStart(9, '0') : typeof r.siren === 'string' ? r.siren.replace(/\s/g, '') : '';
    if (!/^\d{9}$/.test(sirenText)) return { skip: `SIREN absent ou invalide (${String(r.siren ?? '').slice(0, 20)})` };
    const date = isoDate(typeof r.date_cloture_exercice === 'string' ? r.date_cloture_exercice : undefined);
    if (!date) return { skip: `date de clôture absente ou illisible (${String(r.date_cloture_exercice ?? '').slice(0, 20)})` };
    const confidentiality = typeof r.confidentiality === 'string' ? r.confidentiality.trim() : '';
    // Only accounts the company let publish show figures; any other mention hides them all.
    const confidentiel = confidentiality !== '' && confidentiality.toLowerCase() !== 'public';
    const values: Partial<Record<(typeof FIGURES)[number], number | null>> = {};
    for (const name of FIGURES) {
      const v = figure(r[name]);
      if (v === undefined) return { skip: `valeur illisible dans « ${name} »` };
      values[name] = confidentiel ? null : v;
    }
    const type = typeof r.type_bilan === 'string' ? r.type_bilan.trim().toUpperCase().slice(0, 5) : '';
    return {
      row: {
        siren: sirenText,
        date_cloture: date,
        type_bilan: type,
        confidentiel,
        chiffre_affaires: values.chiffre_d_affaires ?? null,
        marge_brute: values.marge_brute ?? null,
        ebe: values.ebe ?? null,
        resultat_net: values.resultat_net ?? null,
        ingested_at: now,
        updated_at: now,
      },
      ...(confidentiality === '' ? { notes: ['confidentialité non précisée : comptes pris comme publics'] } : {}),
    };
  },
  async write(trx, rows) {
    const { applied, ...counts } = await upsertRows(trx, 'company_accounts', ['siren', 'date_cloture', 'type_bilan'], rows, { keepOnUpdate: ['ingested_at'] });
    await refreshTurnovers(trx, applied.map((r) => r.siren));
    return counts;
  },
  sortKey: (row) => `${row.siren}|${row.date_cloture}|${row.type_bilan}`,
};
