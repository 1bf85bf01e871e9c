// Shared fixture of the demo-data tests: the small scale written once per test run to a temporary directory.
import { mkdtempSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeDemoData, type DemoDataResult } from '../../../scripts/demo/index.js';

export const TODAY = '2026-03-05';
export const SEED = 7;

const dirs: string[] = [];
process.on('exit', () => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A fresh temporary directory, removed when the process exits. */
export function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'demo-data-'));
  dirs.push(d);
  return d;
}

let small: Promise<DemoDataResult> | undefined;

/** The small demo set for SEED and TODAY (written once). */
export function smallDemo(): Promise<DemoDataResult> {
  small ??= writeDemoData({ scale: 'small', outDir: tempDir(), today: TODAY, seed: SEED });
  return small;
}

export async function readDemo(name: string): Promise<string> {
  const r = await smallDemo();
  return readFile(join(r.outDir, name), 'utf8');
}

/** "29" for 29232, "2A" for 2A004, "974" for 97411. */
export function departementOfCommune(code: string): string {
  return code.startsWith('97') ? code.slice(0, 3) : code.slice(0, 2);
}

/** The department a postal code belongs to, given the commune's department (20xxx is Corsica). */
export function postalCodeMatches(codePostal: string, dep: string): boolean {
  if (!/^\d{5}$/.test(codePostal)) return false;
  if (dep === '2A' || dep === '2B') return codePostal.startsWith('20');
  if (dep.length === 3) return codePostal.startsWith(dep);
  return codePostal.startsWith(dep);
}

export const ISO_DAY = /^\d{4}-\d{2}-\d{2}$/;

/** True for a real calendar date "YYYY-MM-DD". */
export function isRealDay(text: string): boolean {
  if (!ISO_DAY.test(text)) return false;
  const d = new Date(`${text}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === text;
}
