// Small shared helpers of the demo data: day numbers and ISO dates, CSV fields, and a
// buffered file writer that respects backpressure and only appears once complete.
import { createWriteStream, type WriteStream } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import { once } from 'node:events';
import { dirname } from 'node:path';

const DAY_MS = 86_400_000;

/** Day number (days since 1970-01-01, UTC) of a "YYYY-MM-DD" date, or null if it is not a real date. */
export function parseIsoDay(text: string): number | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (!m) return null;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const t = Date.UTC(y, mo - 1, d);
  const back = new Date(t);
  if (back.getUTCFullYear() !== y || back.getUTCMonth() !== mo - 1 || back.getUTCDate() !== d) return null;
  return Math.round(t / DAY_MS);
}

/** Day number of a local calendar date (the machine's today, by default). */
export function dayOfLocalDate(date: Date): number {
  return Math.round(Date.UTC(date.getFullYear(), date.getMonth(), date.getDate()) / DAY_MS);
}

export function isoDay(day: number): string {
  return new Date(day * DAY_MS).toISOString().slice(0, 10);
}

export function yearOfDay(day: number): number {
  return new Date(day * DAY_MS).getUTCFullYear();
}

const pad2 = (n: number): string => (n < 10 ? `0${n}` : String(n));

/** "YYYY-MM-DDTHH:MM:SS" for a day and a second of that day. */
export function isoDateTime(day: number, secondOfDay: number): string {
  const s = Math.max(0, Math.min(86_399, Math.floor(secondOfDay)));
  return `${isoDay(day)}T${pad2(Math.floor(s / 3600))}:${pad2(Math.floor(s / 60) % 60)}:${pad2(s % 60)}`;
}

function lastSunday(year: number, month: number): number {
  const lastDay = Math.round(Date.UTC(year, month + 1, 0) / DAY_MS);
  const weekday = new Date(lastDay * DAY_MS).getUTCDay();
  return lastDay - weekday;
}

/** "YYYY-MM-DDTHH:00:00+00:00" for a Paris wall-clock hour on that day (summer time from the last Sunday of March to the last Sunday of October). */
export function parisHourUtc(day: number, hour: number): string {
  const year = yearOfDay(day);
  const summer = day >= lastSunday(year, 2) && day < lastSunday(year, 9);
  const utc = hour - (summer ? 2 : 1);
  return `${isoDay(day)}T${pad2(utc)}:00:00+00:00`;
}

const NEEDS_QUOTES = /[",\r\n]/;

/** One CSV field, quoted only when needed (RFC 4180). */
export function csvField(value: string): string {
  return NEEDS_QUOTES.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

export function csvLine(fields: readonly string[]): string {
  let line = '';
  for (let i = 0; i < fields.length; i++) {
    if (i > 0) line += ',';
    line += csvField(fields[i]!);
  }
  return line + '\n';
}

const FLUSH_AT = 1 << 20;

/**
 * Writes a file through a stream, in chunks of about 1 MiB, waiting for 'drain' when the
 * stream is full. The data goes to "<path>.part", renamed to <path> by close(): a file under
 * its final name is always complete.
 */
export class FileWriter {
  private parts: string[] = [];
  private pending = 0;
  private written = 0;
  private readonly tmpPath: string;

  private constructor(
    readonly path: string,
    private readonly stream: WriteStream,
    tmpPath: string,
  ) {
    this.tmpPath = tmpPath;
  }

  static async open(path: string): Promise<FileWriter> {
    await mkdir(dirname(path), { recursive: true });
    const tmpPath = `${path}.part`;
    const stream = createWriteStream(tmpPath, { highWaterMark: 4 << 20 });
    await once(stream, 'open');
    return new FileWriter(path, stream, tmpPath);
  }

  /** Appends text; call flush() when `full` is true. */
  push(text: string): void {
    this.parts.push(text);
    this.pending += text.length;
  }

  get full(): boolean {
    return this.pending >= FLUSH_AT;
  }

  async flush(): Promise<void> {
    if (this.parts.length === 0) return;
    const chunk = Buffer.from(this.parts.join(''), 'utf8');
    this.parts = [];
    this.pending = 0;
    this.written += chunk.length;
    if (!this.stream.write(chunk)) await once(this.stream, 'drain');
  }

  /** Flushes, closes and renames into place; returns the size in bytes. */
  async close(): Promise<number> {
    await this.flush();
    this.stream.end();
    await once(this.stream, 'close');
    await rename(this.tmpPath, this.path);
    return this.written;
  }

  /** Gives up: closes and removes the partial file. */
  async abort(): Promise<void> {
    this.stream.destroy();
    await rm(this.tmpPath, { force: true });
  }
}
