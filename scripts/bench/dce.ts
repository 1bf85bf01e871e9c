// Consultation files (issue 14): extraction throughput in the extraction thread (PDF and DOCX
// pages per second, on documents written like the demo's), `dce.read` of a stored page
// through the HTTP API (p50/p99 at one connection) on the small demo set, and the peak memory
// of `npm run import -- dce` on a 200 MB archive, each next to its target.
import { spawn } from 'node:child_process';
import { createWriteStream, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import yazl from 'yazl';
import { openDatabase } from '../../src/platform/db/database.js';
import { Extractor } from '../../src/platform/extract/extractor.js';
import { fileObjectStore } from '../../src/platform/files/object-store.js';
import { docxDocument, pdfDocument } from '../demo/documents.js';
import { realLikePdfs } from './real-like-pdfs.js';
import { importDemoDataIfEmpty } from '../demo/first-start.js';
import { obtainToken } from '../lib/native-flow.js';
import { BENCH_ACCOUNT, benchDatabase, formatInt, measure, verdict } from './measure.js';
import { startService, stopProcess } from './processes.js';

export const DCE_TARGETS = { pdfPagesPerSecond: 50, readP99Ms: 20, archiveMemoryMb: 400 } as const;

const paragraph = (i: number) =>
  `Article ${i}. Les travaux de couverture comprennent la dépose de l'existant, le traitement des bois de charpente, la pose des liteaux et de l'ardoise naturelle au crochet, les raccords de zinguerie et les abergements, selon les DTU en vigueur.`;

/** The process's peak resident memory (VmHWM) in MB; `reset` starts a new peak (Linux). */
function peakMb(reset = false): number {
  if (reset) {
    try {
      writeFileSync('/proc/self/clear_refs', '5');
    } catch {
      // Not Linux, or not allowed: the peak since the start.
    }
  }
  try {
    return Number(/VmHWM:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? 0) / 1024;
  } catch {
    return 0;
  }
}

/**
 * PDFs like buyers' (printed by Chromium: embedded fonts, tables, photographs, a scanned
 * annex, several hundred pages), extracted in the extraction thread as an import does: pages
 * per second over all of them, the slowest document's rate, and the peak memory of the process.
 */
export async function realLikeExtraction(dir: string): Promise<{ rate: number; slowest: number; peakMb: number } | null> {
  let pdfs: { name: string; bytes: Buffer }[];
  try {
    pdfs = await realLikePdfs({ longPages: 300, scanPages: 30 });
  } catch {
    console.log('  PDF réalistes : Chromium (/usr/bin/chromium) absent, mesure sautée.');
    return null;
  }
  const paths = pdfs.map((p) => {
    const path = join(dir, p.name);
    writeFileSync(path, p.bytes);
    return { name: p.name, path, size: p.bytes.length };
  });
  const extractor = new Extractor();
  try {
    await extractor.extract(paths[1]?.path as string, 'pdf');
    const base = peakMb(true);
    let pages = 0;
    let slowest = Infinity;
    const started = performance.now();
    for (const p of paths) {
      const t = performance.now();
      const n = (await extractor.extract(p.path, 'pdf')).pages.length;
      const rate = n / ((performance.now() - t) / 1000);
      slowest = Math.min(slowest, rate);
      pages += n;
      console.log(`  ${p.name} : ${n} pages, ${formatInt(p.size / 1024)} Ko, ${formatInt(rate)} pages/s`);
    }
    const rate = pages / ((performance.now() - started) / 1000);
    const peak = peakMb();
    console.log(`  PDF réalistes : ${pages} pages en ${((performance.now() - started) / 1000).toFixed(2)} s : ${formatInt(rate)} pages/s (le plus lent ${formatInt(slowest)}), mémoire résidente maximale ${formatInt(peak)} Mo (${formatInt(base)} Mo avant l'extraction)`);
    return { rate, slowest, peakMb: peak };
  } finally {
    await extractor.close();
  }
}

async function extraction(dir: string): Promise<{ pdf: number; docx: number }> {
  const pdfs: string[] = [];
  const docxs: string[] = [];
  for (let i = 0; i < 10; i++) {
    const pdf = join(dir, `cctp-${i}.pdf`);
    writeFileSync(pdf, await pdfDocument(Array.from({ length: 20 }, (_, p) => ({ lines: Array.from({ length: 12 }, (_, l) => paragraph(p * 12 + l)) }))));
    pdfs.push(pdf);
    const docx = join(dir, `cctp-${i}.docx`);
    writeFileSync(docx, await docxDocument(Array.from({ length: 240 }, (_, l) => paragraph(l))));
    docxs.push(docx);
  }
  const extractor = new Extractor();
  try {
    await extractor.extract(pdfs[0] as string, 'pdf');
    let started = performance.now();
    let pages = 0;
    for (const p of pdfs) pages += (await extractor.extract(p, 'pdf')).pages.length;
    const pdf = pages / ((performance.now() - started) / 1000);
    console.log(`  PDF : ${pages} pages (10 documents de 20 pages) en ${((performance.now() - started) / 1000).toFixed(2)} s : ${formatInt(pdf)} pages/s`);
    started = performance.now();
    let chars = 0;
    for (const d of docxs) chars += (await extractor.extract(d, 'docx')).pages.reduce((n, p) => n + p.text.length, 0);
    // A DOCX has no pages: counted in reading pages of 8,000 characters, as the service serves them.
    const docx = chars / 8000 / ((performance.now() - started) / 1000);
    console.log(`  DOCX : ${formatInt(chars / 8000)} pages de lecture (10 documents) en ${((performance.now() - started) / 1000).toFixed(2)} s : ${formatInt(docx)} pages/s`);
    return { pdf, docx };
  } finally {
    await extractor.close();
  }
}

async function reading(): Promise<{ p50: number; p99: number }> {
  const { databaseUrl, remove } = await benchDatabase('bench-dce-');
  try {
    const path = databaseUrl.slice('sqlite:'.length);
    const db = openDatabase(databaseUrl);
    try {
      await importDemoDataIfEmpty(db, () => undefined, fileObjectStore(join(dirname(path), 'dce-objects')));
    } finally {
      await db.destroy();
    }
    const service = await startService({ PORT: '0', DATABASE_URL: databaseUrl, LOG_LEVEL: 'silent' });
    try {
      const { accessToken } = await obtainToken({ baseUrl: service.url, email: BENCH_ACCOUNT.email, password: BENCH_ACCOUNT.password, scope: 'mcp:read' });
      const headers = { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' };
      const check = openDatabase(databaseUrl);
      const ids = ((await check('dce_files').select('annonce_id')) as { annonce_id: string }[]).map((r) => r.annonce_id);
      await check.destroy();
      const bodies = ids.map((marche_id) => JSON.stringify({ marche_id, type: 'rc' }));
      let next = 0;
      const figures = await measure(`dce.read d'une page stockée (${ids.length} dossiers tour à tour), 1 cx`, {
        url: service.url,
        requests: [{ method: 'POST', path: '/api/mcp/v1/dce.read', headers, setupRequest: (request) => ({ ...request, body: bodies[next++ % bodies.length] as string }) }],
      }, 1);
      if (figures.errors || figures.non2xx) console.log(`  Attention : ${figures.errors + figures.non2xx} appels en erreur.`);
      return { p50: figures.p50, p99: figures.p99 };
    } finally {
      await stopProcess(service);
    }
  } finally {
    remove();
  }
}

/** A zip of ~200 MB: 20 incompressible pieces of 10 MB and a few documents, written streamed. */
async function bigArchive(path: string): Promise<void> {
  const zip = new yazl.ZipFile();
  const out = createWriteStream(path);
  zip.outputStream.pipe(out);
  for (let i = 0; i < 20; i++) zip.addBuffer(randomBytes(10 * 1024 * 1024), `Plans/plan-${String(i + 1).padStart(2, '0')}.dwg`, { compress: false });
  zip.addBuffer(Buffer.from(await pdfDocument([{ lines: ['Règlement de la consultation'] }])), 'RC.pdf');
  zip.addBuffer(await docxDocument(Array.from({ length: 200 }, (_, l) => paragraph(l))), 'CCTP.docx');
  zip.end();
  await new Promise<void>((resolve, reject) => {
    out.on('close', () => resolve());
    out.on('error', reject);
  });
}

/** Peak resident memory of `npm run import -- dce - <archive>`, read from /proc while it runs. */
async function archiveMemory(dir: string): Promise<number> {
  const archive = join(dir, 'gros-dce.zip');
  await bigArchive(archive);
  const { databaseUrl, remove } = await benchDatabase('bench-dce-big-');
  try {
    const child = spawn(process.execPath, ['--import=tsx', 'scripts/import.ts', 'dce', '-', archive], { env: { ...process.env, DATABASE_URL: databaseUrl }, stdio: ['ignore', 'pipe', 'pipe'] });
    let peakKb = 0;
    const poll = setInterval(() => {
      try {
        const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
        peakKb = Math.max(peakKb, Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0));
      } catch {
        // The process has ended.
      }
    }, 50);
    const started = performance.now();
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    clearInterval(poll);
    console.log(`  archive de ${formatInt(200)} Mo importée en ${((performance.now() - started) / 1000).toFixed(1)} s (sortie ${code}), mémoire résidente maximale ${formatInt(peakKb / 1024)} Mo`);
    return peakKb / 1024;
  } finally {
    remove();
  }
}

export async function benchDce(): Promise<void> {
  console.log('');
  console.log('Dossiers de consultation (DCE)');
  const dir = mkdtempSync(join(tmpdir(), 'bench-dce-files-'));
  try {
    const rates = await extraction(dir);
    const real = await realLikeExtraction(dir);
    const read = await reading();
    const memory = await archiveMemory(dir);
    const line = (label: string, value: string, target: string, reached: boolean) => console.log(`${label.padEnd(52)} ${value.padStart(14)}   objectif ${target.padEnd(14)} ${verdict(reached)}`);
    line('Extraction PDF (générés)', `${formatInt(rates.pdf)} pages/s`, `≥ ${DCE_TARGETS.pdfPagesPerSecond}`, rates.pdf >= DCE_TARGETS.pdfPagesPerSecond);
    if (real) {
      line('Extraction PDF réalistes (le plus lent)', `${formatInt(real.slowest)} pages/s`, `≥ ${DCE_TARGETS.pdfPagesPerSecond}`, real.slowest >= DCE_TARGETS.pdfPagesPerSecond);
      line('Extraction PDF réalistes (mémoire max.)', `${formatInt(real.peakMb)} Mo`, `< ${DCE_TARGETS.archiveMemoryMb} Mo`, real.peakMb < DCE_TARGETS.archiveMemoryMb);
    }
    line('dce.read d’une page stockée p99 (1 cx)', `${read.p99} ms`, `< ${DCE_TARGETS.readP99Ms} ms`, read.p99 < DCE_TARGETS.readP99Ms);
    line('Import d’une archive de 200 Mo (mémoire max.)', `${formatInt(memory)} Mo`, `< ${DCE_TARGETS.archiveMemoryMb} Mo`, memory < DCE_TARGETS.archiveMemoryMb);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
