// Records of an input: CSV rows (with the header's column count checked) or JSON records
// in every layout the open-data portals publish: {"results": […]}, a bare array, one record
// a line, DECP 2019 {"marches": […]} and DECP 2024 {"marches": {"marche": […]}}.
import type { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { parser } from 'stream-json';
import { CsvSplitter, type CsvRecord } from './csv.js';
import { ImportInputError } from './input.js';
import pick from 'stream-json/filters/pick.js';
import streamArray from 'stream-json/streamers/stream-array.js';

/** A record, or the reason it cannot be read, with its place in the file. */
export type RawRecord<T> = { position: number; value: T } | { position: number; error: string };

/**
 * The function making a row's object from its fields, by the header's names. Compiled to one
 * object literal (the names as JSON string literals, so no header text is ever code): ~7
 * times faster than setting the keys one by one, on the import's hot path.
 */
export function rowBuilder(header: readonly string[]): (fields: string[]) => Record<string, string> {
  if (header.includes('__proto__') || header.length > 1000) {
    return (fields) => {
      const value: Record<string, string> = Object.create(null) as Record<string, string>;
      for (let i = 0; i < header.length; i++) value[header[i] as string] = fields[i] as string;
      return value;
    };
  }
  const body = header.map((name, i) => `${JSON.stringify(name)}: f[${i}]`).join(', ');
  return new Function('f', `return { ${body} };`) as (fields: string[]) => Record<string, string>;
}

export async function* csvRecords(stream: Readable, delimiter: string): AsyncGenerator<RawRecord<Record<string, string>>> {
  const decoder = new StringDecoder('utf8');
  const splitter = new CsvSplitter(delimiter);
  let header: string[] | null = null;
  let build: (fields: string[]) => Record<string, string> = () => ({});
  let out: CsvRecord[] = [];
  const records = function* (): Generator<RawRecord<Record<string, string>>> {
    const list = out;
    out = [];
    for (const record of list) {
      if ('error' in record) {
        yield { position: record.line, error: `ligne illisible (${record.error})` };
        continue;
      }
      if (!header) {
        header = record.fields.map((h) => h.trim());
        build = rowBuilder(header);
        continue;
      }
      if (record.fields.length !== header.length) {
        yield { position: record.line, error: `nombre de colonnes incorrect (${record.fields.length} au lieu de ${header.length})` };
        continue;
      }
      yield { position: record.line, value: build(record.fields) };
    }
  };
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    splitter.push(decoder.write(chunk), out);
    yield* records();
  }
  splitter.push(decoder.end(), out);
  splitter.end(out);
  yield* records();
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
  if (!layout) throw new ImportInputError('format JSON non reconnu (attendu : {"results": […]}, un tableau, un enregistrement par ligne, ou DECP {"marches": …})');
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
