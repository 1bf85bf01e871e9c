// Pieces shared by the importers: identifiers, dates, department codes, batched upserts.
import { createHash } from 'node:crypto';
import type { Knex } from 'knex';

export const isSiren = (v: string | undefined): v is string => !!v && /^\d{9}$/.test(v);
export const isSiret = (v: string | undefined): v is string => !!v && /^\d{14}$/.test(v);

/** `YYYY-MM-DD` from `YYYY-MM-DD[…]` or `DD/MM/YYYY`; undefined when empty; null when unreadable. */
export function isoDate(value: string | undefined | null): string | undefined | null {
  const v = (value ?? '').trim();
  if (!v) return undefined;
  let m = /^(\d{4})-(\d{2})-(\d{2})/.exec(v);
  if (m) return validDate(`${m[1]}-${m[2]}-${m[3]}`);
  m = /^(\d{2})\/(\d{2})\/(\d{4})$/.exec(v);
  if (m) return validDate(`${m[3]}-${m[2]}-${m[1]}`);
  return null;
}

function validDate(iso: string): string | null {
  const d = new Date(`${iso}T00:00:00Z`);
  return Number.isNaN(d.getTime()) || d.toISOString().slice(0, 10) !== iso ? null : iso;
}

/** The department of an INSEE commune code (2A/2B in Corsica, 3 digits overseas). */
export function departementOfCommune(code: string | undefined | null): string | null {
  const c = (code ?? '').trim().toUpperCase();
  if (!/^(\d{5}|2[AB]\d{3})$/.test(c)) return null;
  if (c.startsWith('97')) return c.slice(0, 3);
  return c.slice(0, 2);
}

/** The department of a postal code (Corsica 20xxx: 2A below 20200, else 2B). */
export function departementOfPostalCode(code: string | undefined | null): string | null {
  const c = (code ?? '').trim();
  if (!/^\d{5}$/.test(c)) return null;
  if (c.startsWith('97')) return c.slice(0, 3);
  if (c.startsWith('20')) return Number(c) < 20200 ? '2A' : '2B';
  return c.slice(0, 2);
}

/** A stable UUID (version-5 layout) from a name: a re-import keeps the same id. */
export function stableUuid(name: string): string {
  const h = createHash('sha1').update(name).digest();
  h[6] = ((h[6] as number) & 0x0f) | 0x50;
  h[8] = ((h[8] as number) & 0x3f) | 0x80;
  const x = h.subarray(0, 16).toString('hex');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20, 32)}`;
}

/**
 * Rows per INSERT: under the limits on bound parameters, and under SQLite's 500 terms of a
 * compound SELECT (Knex writes a multi-row upsert on SQLite as `select … union all …`).
 */
function chunkSize(columns: number): number {
  return Math.max(1, Math.min(500, Math.floor(30_000 / Math.max(columns, 1))));
}

/**
 * Upserts rows on `key`: new rows inserted, existing ones replaced unless the stored
 * version is newer (`versionColumn`). Returns how many keys were new and how many existed.
 */
export async function upsertRows(
  trx: Knex.Transaction,
  table: string,
  key: string | string[],
  rows: Record<string, unknown>[],
  options: { keepOnUpdate?: string[]; versionColumn?: string } = {},
): Promise<{ inserted: number; updated: number }> {
  if (!rows.length) return { inserted: 0, updated: 0 };
  const keys = Array.isArray(key) ? key : [key];
  // Last occurrence wins inside one batch.
  const unique = new Map<string, Record<string, unknown>>();
  for (const row of rows) unique.set(keys.map((k) => String(row[k])).join('\u0000'), row);
  const list = [...unique.values()];
  let existing = 0;
  if (keys.length === 1) {
    const k = keys[0] as string;
    for (let i = 0; i < list.length; i += 900) {
      const ids = list.slice(i, i + 900).map((r) => r[k] as string);
      const found = await trx(table).whereIn(k, ids).count<{ n: number | string }[]>('* as n');
      existing += Number(found[0]?.n ?? 0);
    }
  }
  const columns = Object.keys(list[0] as object);
  const update = columns.filter((c) => !keys.includes(c) && !(options.keepOnUpdate ?? []).includes(c));
  const size = chunkSize(columns.length);
  for (let i = 0; i < list.length; i += size) {
    const query = trx(table).insert(list.slice(i, i + size)).onConflict(keys).merge(update);
    if (options.versionColumn) {
      const v = options.versionColumn;
      // An older version never replaces a newer one.
      query.where(trx.raw(`coalesce(??.??, '') <= coalesce(excluded.??, '')`, [table, v, v]));
    }
    await query;
  }
  return { inserted: list.length - existing, updated: existing };
}

/** Inserts rows, ignoring those whose key already exists, in chunks under the databases' limits. */
export async function insertIgnoring(trx: Knex.Transaction, table: string, key: string | string[], rows: Record<string, unknown>[]): Promise<void> {
  if (!rows.length) return;
  const size = chunkSize(Object.keys(rows[0] as object).length);
  const keys = Array.isArray(key) ? key : [key];
  for (let i = 0; i < rows.length; i += size) await trx(table).insert(rows.slice(i, i + size)).onConflict(keys).ignore();
}
