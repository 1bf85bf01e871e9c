// PDFs written like buyers' pieces, for the extraction bench: printed by Chromium (Debian's,
// driven by playwright-core, as the page tests use it), so they carry what office suites
// put in a real CCTP or contract: embedded subset TrueType fonts (serif, sans, bold, italic,
// several per page), tables drawn as bordered cells, photographs (JPEG) and diagrams,
// running headers and footers, several hundred pages. The generated demo PDFs have none of
// this (one standard font, no image, no table) and extract ten times faster than real ones.
import { chromium } from 'playwright-core';

const CHROMIUM_PATH = '/usr/bin/chromium';
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];

const WORDS = `couverture zinguerie charpente ardoise naturelle crochet inox liteaux voliges chevrons
pannes fermettes écran sous-toiture gouttières descentes abergements noues faîtage rives
solins étanchéité isolation laine minérale pare-vapeur échafaudage protection collective
garde-corps dépose évacuation déchets tri sélectif bordereau quantités métré prix unitaire
plus-value réception levée réserves garantie parfait achèvement décennale biennale`.split(/\s+/);

/** A deterministic pseudo-random generator: the same document every run. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

function sentence(r: () => number, n: number): string {
  const words = Array.from({ length: n }, () => WORDS[Math.floor(r() * WORDS.length)] as string);
  const text = words.join(' ');
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}.`;
}

/** The HTML of a piece of about `pages` A4 pages: articles of prose, price tables and figures in turn. */
function pieceHtml(pages: number, seed: number, tableHeavy: boolean): string {
  const r = rng(seed);
  const parts: string[] = [];
  for (let i = 1; i <= pages; i++) {
    parts.push(`<h2>Article ${i}. ${sentence(r, 5)}</h2>`);
    parts.push(`<p>${sentence(r, 40)} <b>${sentence(r, 6)}</b> ${sentence(r, 30)} <i>${sentence(r, 8)}</i> ${sentence(r, 25)}</p>`);
    if (tableHeavy || i % 2 === 0) {
      const rows = Array.from({ length: tableHeavy ? 22 : 10 }, (_, k) => `<tr><td>${i}.${k + 1}</td><td>${sentence(r, 6)}</td><td>m²</td><td>${(r() * 500).toFixed(2)}</td><td>${(r() * 90).toFixed(2)}</td><td>${(r() * 40000).toFixed(2)}</td></tr>`);
      parts.push(`<table><thead><tr><th>N°</th><th>Désignation</th><th>U</th><th>Qté</th><th>PU HT</th><th>Total HT</th></tr></thead><tbody>${rows.join('')}</tbody></table>`);
    }
    if (i % 5 === 0) parts.push(`<figure><img class="photo" data-seed="${seed + i}" width="480" height="300"><figcaption>Figure ${i / 5} – ${sentence(r, 6)}</figcaption></figure>`);
    if (i % 7 === 0) parts.push(`<svg width="480" height="120">${Array.from({ length: 40 }, (_, k) => `<line x1="${k * 12}" y1="0" x2="${480 - k * 12}" y2="120" stroke="#456" />`).join('')}</svg>`);
    parts.push(`<p style="font-family: 'DejaVu Sans Mono', monospace">${sentence(r, 20)}</p><div class="break"></div>`);
  }
  return `<!doctype html><html lang="fr"><head><meta charset="utf-8"><style>
    body { font-family: 'DejaVu Serif', serif; font-size: 10.5pt; }
    h2 { font-family: 'DejaVu Sans', sans-serif; font-size: 12pt; }
    table { border-collapse: collapse; width: 100%; font-family: 'DejaVu Sans Condensed', sans-serif; font-size: 9pt; }
    td, th { border: 0.5pt solid #333; padding: 2pt 4pt; }
    th { background: #dde; }
    .break { break-after: page; }
  </style></head><body>${parts.join('\n')}
  <script>
    // Photographs: noisy JPEGs (incompressible like real photos), drawn then embedded.
    for (const img of document.querySelectorAll('img.photo')) {
      const c = document.createElement('canvas'); c.width = 480; c.height = 300;
      const g = c.getContext('2d'); const d = g.createImageData(480, 300);
      let s = Number(img.dataset.seed);
      for (let i = 0; i < d.data.length; i += 4) { s = (s * 1664525 + 1013904223) >>> 0; d.data[i] = s & 255; d.data[i + 1] = (s >> 8) & 255; d.data[i + 2] = (i / 4) % 255; d.data[i + 3] = 255; }
      g.putImageData(d, 0, 0); img.src = c.toDataURL('image/jpeg', 0.85);
    }
  </script></body></html>`;
}

export interface RealLikePdf {
  name: string;
  bytes: Buffer;
}

/** A scanned annex: full pages that are only a photograph of paper (a JPEG of A4 at 150 dpi), no text layer. */
function scanHtml(pages: number, seed: number): string {
  const imgs = Array.from({ length: pages }, (_, i) => `<img class="scan" data-seed="${seed + i}" style="width:100%;height:250mm;display:block;break-after:page">`).join('');
  return `<!doctype html><html><body style="margin:0">${imgs}<script>
    for (const img of document.querySelectorAll('img.scan')) {
      const c = document.createElement('canvas'); c.width = 1240; c.height = 1754;
      const g = c.getContext('2d'); g.fillStyle = '#f4f1ea'; g.fillRect(0, 0, 1240, 1754);
      let s = Number(img.dataset.seed);
      // Lines of "handwriting": strokes and noise, as a scanned signed page looks.
      for (let y = 120; y < 1650; y += 38) for (let x = 100; x < 1140; x += 9) {
        s = (s * 1664525 + 1013904223) >>> 0;
        g.fillStyle = 'rgba(20,20,40,' + ((s & 255) / 400) + ')'; g.fillRect(x, y + (s >> 28), 6, 3 + ((s >> 12) & 7));
      }
      img.src = c.toDataURL('image/jpeg', 0.8);
    }
  </script></body></html>`;
}

/** A CCTP of several hundred pages and a 35-page contract full of tables, as Chromium prints them, and a scanned annex. */
export async function realLikePdfs(options: { longPages?: number; scanPages?: number } = {}): Promise<RealLikePdf[]> {
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
  try {
    const page = await browser.newPage();
    const print = async (html: string) => {
      await page.setContent(html, { waitUntil: 'load' });
      return page.pdf({ format: 'A4', margin: { top: '20mm', bottom: '20mm', left: '18mm', right: '18mm' }, displayHeaderFooter: true, headerTemplate: '<div style="font-size:7pt;width:100%;text-align:center">CCTP – Lot 02 Couverture</div>', footerTemplate: '<div style="font-size:7pt;width:100%;text-align:center"><span class="pageNumber"></span> / <span class="totalPages"></span></div>' });
    };
    return [
      { name: 'CCTP-lot-02.pdf', bytes: await print(pieceHtml(options.longPages ?? 150, 7, false)) },
      { name: 'Contrat-avec-tableaux.pdf', bytes: await print(pieceHtml(18, 11, true)) },
      { name: 'Annexe-numerisee.pdf', bytes: await page.setContent(scanHtml(options.scanPages ?? 20, 3), { waitUntil: 'load' }).then(() => page.pdf({ format: 'A4', margin: { top: '0', bottom: '0', left: '0', right: '0' } })) },
    ];
  } finally {
    await browser.close();
  }
}
