// Headless Chromium for the page tests (Debian package, driven by playwright-core), and a
// screenshot check that a page really rendered: a decoded PNG with visible content.
import { mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inflateSync } from 'node:zlib';
import { expect } from 'chai';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';

export const CHROMIUM_PATH = '/usr/bin/chromium';
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];

/** Where the screenshots go: `<tmpdir>/screenshots/<name>.png`. */
export const SCREENSHOT_DIR = join(tmpdir(), 'screenshots');

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
}

export async function closeBrowser(browser: Browser | undefined): Promise<void> {
  if (browser) await browser.close();
}

export interface DecodedPng {
  width: number;
  height: number;
  /** Bytes per pixel (8-bit channels only). */
  channels: number;
  /** Unfiltered pixel bytes, row after row, without the filter bytes. */
  pixels: Buffer;
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const CHANNELS: Record<number, number> = { 0: 1, 2: 3, 4: 2, 6: 4 };

function paeth(a: number, b: number, c: number): number {
  const p = a + b - c;
  const pa = Math.abs(p - a);
  const pb = Math.abs(p - b);
  const pc = Math.abs(p - c);
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

/** A minimal PNG decoder: 8-bit grey/RGB/grey-alpha/RGBA, not interlaced (what Chromium writes). */
export function decodePng(png: Buffer): DecodedPng {
  if (png.length < 33 || !png.subarray(0, 8).equals(PNG_SIGNATURE)) throw new Error('pas un fichier PNG');
  let offset = 8;
  let width = 0;
  let height = 0;
  let channels = 0;
  const idat: Buffer[] = [];
  while (offset + 8 <= png.length) {
    const length = png.readUInt32BE(offset);
    const type = png.toString('latin1', offset + 4, offset + 8);
    const data = png.subarray(offset + 8, offset + 8 + length);
    if (type === 'IHDR') {
      width = data.readUInt32BE(0);
      height = data.readUInt32BE(4);
      const bitDepth = data[8];
      const colourType = data[9] as number;
      const interlace = data[12];
      if (bitDepth !== 8 || interlace !== 0 || !CHANNELS[colourType]) throw new Error(`PNG non pris en charge (profondeur ${bitDepth}, couleur ${colourType}, entrelacement ${interlace})`);
      channels = CHANNELS[colourType] as number;
    } else if (type === 'IDAT') idat.push(data);
    else if (type === 'IEND') break;
    offset += 12 + length;
  }
  if (!width || !height || !channels || idat.length === 0) throw new Error('PNG incomplet (IHDR ou IDAT manquant)');
  const raw = inflateSync(Buffer.concat(idat));
  const stride = width * channels;
  if (raw.length !== height * (stride + 1)) throw new Error(`PNG : ${raw.length} octets décompressés, ${height * (stride + 1)} attendus`);
  const pixels = Buffer.alloc(height * stride);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)];
    const line = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    const out = y * stride;
    const up = (y - 1) * stride;
    for (let x = 0; x < stride; x++) {
      const a = x >= channels ? (pixels[out + x - channels] as number) : 0;
      const b = y > 0 ? (pixels[up + x] as number) : 0;
      const c = y > 0 && x >= channels ? (pixels[up + x - channels] as number) : 0;
      const v = line[x] as number;
      let value: number;
      if (filter === 0) value = v;
      else if (filter === 1) value = v + a;
      else if (filter === 2) value = v + b;
      else if (filter === 3) value = v + ((a + b) >> 1);
      else if (filter === 4) value = v + paeth(a, b, c);
      else throw new Error(`PNG : filtre ${filter} inconnu`);
      pixels[out + x] = value & 0xff;
    }
  }
  return { width, height, channels, pixels };
}

export interface ColourStats {
  distinctColours: number;
  /** Share of the pixels that have the most frequent colour (0..1). */
  dominantShare: number;
}

export function colourStats(image: DecodedPng): ColourStats {
  const counts = new Map<number, number>();
  const { pixels, channels } = image;
  for (let i = 0; i < pixels.length; i += channels) {
    let key = 0;
    for (let k = 0; k < channels; k++) key = key * 256 + (pixels[i + k] as number);
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  const total = pixels.length / channels;
  return { distinctColours: counts.size, dominantShare: Math.max(...counts.values()) / total };
}

/**
 * Takes a full-page screenshot, writes it to `<tmpdir>/screenshots/<name>.png`, and checks
 * that the page really rendered: a PNG of more than a few KB, with many colours (text is
 * anti-aliased) and no colour covering almost all of it; then that the key elements are
 * visible. A blank page (about:blank, an unstyled error) fails.
 */
export async function expectRendered(page: Page, name: string, visible: Locator[] = []): Promise<{ path: string; width: number; height: number; stats: ColourStats }> {
  const png = await page.screenshot({ fullPage: true });
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const path = join(SCREENSHOT_DIR, `${name}.png`);
  writeFileSync(path, png);
  expect(png.length, `capture ${name} : taille du PNG`).to.be.greaterThan(8 * 1024);
  const image = decodePng(png);
  expect(image.width, `capture ${name} : largeur`).to.be.greaterThan(200);
  expect(image.height, `capture ${name} : hauteur`).to.be.greaterThan(200);
  const stats = colourStats(image);
  expect(stats.distinctColours, `capture ${name} : nombre de couleurs`).to.be.greaterThan(20);
  expect(stats.dominantShare, `capture ${name} : part de la couleur dominante`).to.be.lessThan(0.97);
  for (const locator of visible) {
    expect(await locator.isVisible(), `capture ${name} : élément visible ${String(locator)}`).to.equal(true);
    const box = await locator.boundingBox();
    expect(box && box.width > 0 && box.height > 0, `capture ${name} : élément de taille nulle ${String(locator)}`).to.equal(true);
  }
  return { path, width: image.width, height: image.height, stats };
}
