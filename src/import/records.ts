// Records of an input: CSV rows (with the header's column count checked) or JSON records
// in every layout the open-data portals publish: {"results": […]}, a bare array, one record
// a line, DECP 2019 {"marches": […]} and DECP 2024 {"marches": {"marche": […]}}.
import type { Readable } from 'node:stream';
import { parse } from 'csv-parse';
import { parser } from 'stream-json';
import pick from 'stream-json/filters/pick.js';
import streamArray from 'stream-json/streamers/stream-array.js';

/** A record, or the reason it cannot be read, with its place in the file. */
export type RawRecord<T> = { position: number; value: T } | { position: number; error: string };

export async function* csvRecords(stream: Readable, delimiter: string): AsyncGenerator<RawRecord<Record<string, string>>> {
  const rows = stream.pipe(parse({ delimiter, relax_column_count: true, relax_quotes: true, bom: true, skip_empty_lines: true, info: true }));
  let header: string[] | null = null;
  for await (const { record, info } of rows as AsyncIterable<{ record: string[]; info: { lines: number } }>) {
    if (!header) {
      header = record.map((h) => h.trim());
      continue;
    }
    if (record.length !== header.length) {
      yield { position: info.lines, error: `nombre de colonnes incorrect (${record.length} au lieu de ${header.length})` };
      continue;
    }
    const value: Record<string, string> = {};
    for (let i = 0; i < header.length; i++) value[header[i] as string] = record[i] as string;
    yield { position: info.lines, value };
  }
}

export type JsonLayout = 'results' | 'array' | 'lines' | 'decp-2019' | 'decp-2024';

/** Reads the first bytes to tell the layout, and gives them back with the rest. */
async function peek(stream: Readable): Promise<{ head: string; rest: AsyncIterable<Buffer> }> {
  const iterator = stream[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  const chunks: Buffer[] = [];
  let size = 0;
  while (size < 4096) {
    const next = await iterator.next();
    if (next.done) break;
    chunks.push(next.value);
    size += next.value.length;
  }
  const head = Buffer.concat(chunks).toString('utf8').replace(/^\uFEFF/, '');
  async function* rest(): AsyncIterable<Buffer> {
    yield* chunks;
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) yield next.value;
  }
  return { head, rest: rest() };
}

export function detectLayout(head: string): JsonLayout | null {
  const start = head.trimStart();
  if (start.startsWith('[')) return 'array';
  if (/^\{\s*"results"\s*:\s*\[/.test(start)) return 'results';
  if (/^\{\s*"marches"\s*:\s*\[/.test(start)) return 'decp-2019';
  if (/^\{\s*"marches"\s*:\s*\{\s*"marche"\s*:\s*\[/.test(start)) return 'decp-2024';
  if (start.startsWith('{')) return 'lines';
  return null;
}

export async function* jsonRecords(stream: Readable): AsyncGenerator<RawRecord<unknown>> {
  const { head, rest } = await peek(stream);
  const layout = detectLayout(head);
  if (!layout) throw new Error('format JSON non reconnu (attendu : {"results": […]}, un tableau, un enregistrement par ligne, ou DECP {"marches": …})');
  const { Readable } = await import('node:stream');
  const source = Readable.from(rest);
  if (layout === 'lines') {
    let position = 0;
    let pending = '';
    for await (const chunk of source) {
      pending += (chunk as Buffer).toString('utf8');
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) yield* jsonLine(line, ++position);
    }
    if (pending.trim()) yield* jsonLine(pending, position + 1);
    return;
  }
  const path = { results: 'results', 'decp-2019': 'marches', 'decp-2024': 'marches.marche', array: null }[layout];
  const tokens = source.pipe(parser.asStream());
  const items = (path ? tokens.pipe(pick.asStream({ filter: path })) : tokens).pipe(streamArray.asStream());
  let position = 0;
  try {
    for await (const item of items as AsyncIterable<{ key: number; value: unknown }>) {
      position = item.key + 1;
      yield { position, value: item.value };
    }
  } catch (err) {
    // A syntax error ends a JSON document: what was read stays, the rest cannot be.
    yield { position: position + 1, error: `JSON invalide après l'enregistrement ${position} : lecture arrêtée (${(err as Error).message.slice(0, 120)})` };
  }
}

function* jsonLine(line: string, position: number): Generator<RawRecord<unknown>> {
  const text = line.trim();
  if (!text) return;
  try {
    yield { position, value: JSON.parse(text) as unknown };
  } catch {
    yield { position, error: 'JSON invalide' };
  }
}
