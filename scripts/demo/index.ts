// writeDemoData: every demo file, in the real published formats, deterministic for a given
// seed and date. Used by `npm run demo-data` and callable in-process (e.g. by `npm start`).
import { join } from 'node:path';
import { writeBodacc } from './bodacc.js';
import { writeBoamp } from './boamp.js';
import { BuyerPicker, buildBuyers } from './buyers.js';
import { CompanyIndex, type DemoContext } from './companies.js';
import { writeContacts } from './contacts.js';
import { writeDeliberations } from './deliberations.js';
import { writePublications } from './publications.js';
import { writeDce } from './dce.js';
import { writeDecp } from './decp.js';
import { writeDvf } from './dvf.js';
import { writeRge } from './rge.js';
import { writeRatios, writeRneStock } from './finances.js';
import { writeSirene } from './sirene.js';
import { SITADEL_FILES, writeSitadel } from './sitadel.js';
import { dayOfLocalDate, isoDay, parseIsoDay } from './util.js';

export type DemoScale = 'small' | 'large' | 'national';

export interface DemoDataOptions {
  scale?: DemoScale;
  outDir: string;
  /** "YYYY-MM-DD" or a Date (its local calendar day); the machine's today by default. */
  today?: string | Date;
  /** Unsigned 32-bit integer; 1 by default. */
  seed?: number;
  /** Called before each source is written (progress for a terminal). */
  onStep?: (message: string) => void;
  /** A share of the scale's volumes (0 < f ≤ 1; 1 by default), each at least 1. */
  scaleFactor?: number;
  /** Only these sources are written (all by default). */
  sources?: readonly DemoDataFile['source'][];
}

export interface DemoDataFile {
  source: 'sirene-unites' | 'sirene-etablissements' | 'rge' | 'rne' | 'ratios' | 'boamp' | 'decp' | 'bodacc' | 'deliberations' | 'publications' | 'contacts' | 'dvf' | 'permis' | 'dce';
  /** Path relative to outDir. */
  name: string;
  /** A consultation file's notice (its annonce_id), for `npm run import -- dce`. */
  target?: string;
  path: string;
  rows: number;
  bytes: number;
}

export interface DemoDataResult {
  outDir: string;
  scale: DemoScale;
  seed: number;
  today: string;
  files: DemoDataFile[];
  counts: {
    entreprises: number;
    etablissements: number;
    rge: number;
    /** Companies of the RNE stock, and yearly accounts of the ratios file. */
    registre: number;
    comptes: number;
    avis: number;
    attributions2019: number;
    attributions2024: number;
    annonces: number;
    deliberations: number;
    publications: number;
    contacts: number;
    /** DVF: lines of the geo-dvf file, lines of the variant file, mutations of both. */
    ventesLignes: number;
    ventesLignesVariante: number;
    ventes: number;
    /** Permits over the four Sitadel lists, and those authorised (not cancelled) in the last 45 days. */
    permis: number;
    permisAutorises45Jours: number;
    dossiersDce: number;
  };
  /** The first announcement of the BODACC file (a receivership on fixed dates) and its company's SIREN. */
  bodaccShowcase: { id: string; siren: string };
  durationMs: number;
}

export const SCALES: Readonly<
  Record<
    DemoScale,
    { entreprises: number; rge: number; avis: number; attributions: number; annonces: number; deliberations: number; publications: number; contacts: number; ventesLignes: number; permis: number; dce: number }
  >
> = {
  small: { entreprises: 2_000, rge: 500, avis: 1_500, attributions: 1_500, annonces: 1_500, deliberations: 1_000, publications: 2_000, contacts: 1_500, ventesLignes: 3_000, permis: 1_500, dce: 150 },
  large: { entreprises: 1_000_000, rge: 150_000, avis: 300_000, attributions: 300_000, annonces: 500_000, deliberations: 100_000, publications: 300_000, contacts: 200_000, ventesLignes: 2_000_000, permis: 500_000, dce: 5_000 },
  // The publishers' orders of magnitude (npm run bench -- --scale national): 10 million
  // companies (~15.5 million establishments), 2 million notices, 2 million awards (two DECP
  // files), 10 million BODACC announcements, 8.3 million geo-dvf lines (~5 million sales).
  national: { entreprises: 10_000_000, rge: 1_500_000, avis: 2_000_000, attributions: 1_000_000, annonces: 10_000_000, deliberations: 1_000_000, publications: 3_000_000, contacts: 2_000_000, ventesLignes: 8_300_000, permis: 5_000_000, dce: 0 },
};

export const DEMO_FILES = {
  unites: 'sirene/StockUniteLegale_utf8.csv',
  etablissements: 'sirene/StockEtablissement_utf8.csv',
  rge: 'rge/liste-entreprises-rge.csv',
  rne: 'rne/stock-rne.zip',
  ratios: 'ratios/ratios_inpi_bce.csv.gz',
  boampJson: 'boamp/boamp.json',
  boampJsonl: 'boamp/boamp.jsonl',
  decp2019: 'decp/decp-2019.json',
  decp2024: 'decp/decp-2024.json',
  bodaccJson: 'bodacc/annonces-commerciales.json',
  bodaccJsonl: 'bodacc/annonces-commerciales.jsonl',
  deliberations: 'mairie/deliberations.jsonl',
  /** A folder: one zip per consultation file and their manifest, dce.json. */
  dce: 'dce',
  publications: 'reseaux-sociaux/publications.jsonl',
  contacts: 'contacts/contacts.jsonl',
  dvf: 'dvf/geo-dvf.csv',
  dvfVariant: 'dvf/dvf-variante-etalab.csv',
  permisLogements: SITADEL_FILES.logements,
  permisLocaux: SITADEL_FILES.locaux,
  permisDemolir: SITADEL_FILES.demolir,
  permisAmenager: SITADEL_FILES.amenager,
} as const;

function resolveToday(today: string | Date | undefined): number {
  if (today === undefined) return dayOfLocalDate(new Date());
  if (today instanceof Date) {
    if (Number.isNaN(today.getTime())) throw new RangeError('date du jour invalide');
    return dayOfLocalDate(today);
  }
  const day = parseIsoDay(today);
  if (day === null) throw new RangeError(`date du jour invalide : « ${today} » (attendu AAAA-MM-JJ)`);
  return day;
}

export async function writeDemoData(options: DemoDataOptions): Promise<DemoDataResult> {
  const started = performance.now();
  const scale = options.scale ?? 'small';
  const full = SCALES[scale];
  if (!full) throw new RangeError(`échelle inconnue : ${String(scale)}`);
  const factor = options.scaleFactor ?? 1;
  if (!(factor > 0 && factor <= 1)) throw new RangeError('le facteur d’échelle doit être compris entre 0 (exclu) et 1');
  const sizes = Object.fromEntries(Object.entries(full).map(([k, n]) => [k, n === 0 ? 0 : Math.max(1, Math.round(n * factor))])) as typeof full;
  const want = (source: DemoDataFile['source']) => !options.sources || options.sources.includes(source);
  const seed = options.seed ?? 1;
  if (!Number.isInteger(seed) || seed < 0 || seed > 0xffffffff) throw new RangeError('la graine doit être un entier de 0 à 4294967295');
  const ctx: DemoContext = { seed, today: resolveToday(options.today) };
  const step = options.onStep ?? ((): void => undefined);
  const path = (name: string): string => join(options.outDir, name);
  const files: DemoDataFile[] = [];

  step(`Entreprises et établissements (SIRENE, ${sizes.entreprises} unités légales)…`);
  const sirene = await writeSirene(ctx, sizes.entreprises, path(DEMO_FILES.unites), path(DEMO_FILES.etablissements));
  files.push({ source: 'sirene-unites', name: DEMO_FILES.unites, ...sirene.unites });
  files.push({ source: 'sirene-etablissements', name: DEMO_FILES.etablissements, ...sirene.etablissements });

  const companies = new CompanyIndex(ctx, sizes.entreprises);
  const none = { rows: 0, bytes: 0 };
  let rge = none;
  if (want('rge')) {
    step(`Liste RGE (${sizes.rge} qualifications)…`);
    rge = await writeRge(ctx, companies, sizes.rge, path(DEMO_FILES.rge));
    files.push({ source: 'rge', name: DEMO_FILES.rge, path: path(DEMO_FILES.rge), ...rge });
  }

  let rne = none;
  if (want('rne')) {
    step('Registre national des entreprises (stock RNE, dirigeants et capital)…');
    rne = await writeRneStock(ctx, companies, path(DEMO_FILES.rne));
    files.push({ source: 'rne', name: DEMO_FILES.rne, path: path(DEMO_FILES.rne), ...rne });
  }
  let accounts = none;
  if (want('ratios')) {
    step('Ratios financiers BCE/INPI (comptes annuels)…');
    accounts = await writeRatios(ctx, companies, path(DEMO_FILES.ratios));
    files.push({ source: 'ratios', name: DEMO_FILES.ratios, path: path(DEMO_FILES.ratios), ...accounts });
  }

  const picker = new BuyerPicker(buildBuyers(seed));
  let boamp: Awaited<ReturnType<typeof writeBoamp>> = { rows: 0, jsonBytes: 0, jsonlBytes: 0, tenders: [] };
  if (want('boamp') || want('dce')) {
    step(`Avis BOAMP (${sizes.avis} avis)…`);
    boamp = await writeBoamp(ctx, sizes.avis, picker, companies, path(DEMO_FILES.boampJson), path(DEMO_FILES.boampJsonl));
    files.push({ source: 'boamp', name: DEMO_FILES.boampJson, path: path(DEMO_FILES.boampJson), rows: boamp.rows, bytes: boamp.jsonBytes });
    files.push({ source: 'boamp', name: DEMO_FILES.boampJsonl, path: path(DEMO_FILES.boampJsonl), rows: boamp.rows, bytes: boamp.jsonlBytes });
  }

  let dceFiles = 0;
  if (want('dce') && sizes.dce > 0) {
    step(`Dossiers de consultation (${sizes.dce} zips de pièces PDF, DOCX, XLSX, ODT)…`);
    const dce = await writeDce(ctx, sizes.dce, boamp.tenders, options.outDir, DEMO_FILES.dce);
    for (const f of dce.files) files.push({ source: 'dce', name: f.name, path: path(f.name), rows: 1, bytes: f.bytes, target: f.target });
    dceFiles = dce.files.length;
  }

  let d2019 = none;
  let d2024 = none;
  if (want('decp')) {
    step(`Attributions DECP (${sizes.attributions} par format)…`);
    d2019 = await writeDecp(ctx, '2019', sizes.attributions, picker, companies, path(DEMO_FILES.decp2019));
    files.push({ source: 'decp', name: DEMO_FILES.decp2019, path: path(DEMO_FILES.decp2019), ...d2019 });
    d2024 = await writeDecp(ctx, '2024', sizes.attributions, picker, companies, path(DEMO_FILES.decp2024));
    files.push({ source: 'decp', name: DEMO_FILES.decp2024, path: path(DEMO_FILES.decp2024), ...d2024 });
  }

  let bodacc: Awaited<ReturnType<typeof writeBodacc>> | null = null;
  if (want('bodacc')) {
    step(`Annonces BODACC (${sizes.annonces} annonces)…`);
    bodacc = await writeBodacc(ctx, sizes.annonces, companies, path(DEMO_FILES.bodaccJson), path(DEMO_FILES.bodaccJsonl));
    files.push({ source: 'bodacc', name: DEMO_FILES.bodaccJson, path: path(DEMO_FILES.bodaccJson), rows: bodacc.rows, bytes: bodacc.jsonBytes });
    files.push({ source: 'bodacc', name: DEMO_FILES.bodaccJsonl, path: path(DEMO_FILES.bodaccJsonl), rows: bodacc.rows, bytes: bodacc.jsonlBytes });
  }

  let minutes = none;
  if (want('deliberations')) {
    step(`Délibérations municipales (${sizes.deliberations})…`);
    minutes = await writeDeliberations(ctx, sizes.deliberations, picker, companies, path(DEMO_FILES.deliberations));
    files.push({ source: 'deliberations', name: DEMO_FILES.deliberations, path: path(DEMO_FILES.deliberations), ...minutes });
  }
  let posts = none;
  if (want('publications')) {
    step(`Publications des réseaux sociaux (${sizes.publications})…`);
    posts = await writePublications(ctx, sizes.publications, picker, companies, path(DEMO_FILES.publications));
    files.push({ source: 'publications', name: DEMO_FILES.publications, path: path(DEMO_FILES.publications), ...posts });
  }
  let people = none;
  if (want('contacts')) {
    step(`Contacts de l'annuaire (${sizes.contacts})…`);
    people = await writeContacts(ctx, sizes.contacts, picker, companies, path(DEMO_FILES.contacts));
    files.push({ source: 'contacts', name: DEMO_FILES.contacts, path: path(DEMO_FILES.contacts), ...people });
  }
  let dvf: Awaited<ReturnType<typeof writeDvf>> | null = null;
  if (want('dvf')) {
    step(`Ventes immobilières DVF (${sizes.ventesLignes} lignes geo-dvf)…`);
    dvf = await writeDvf(ctx, sizes.ventesLignes, path(DEMO_FILES.dvf), path(DEMO_FILES.dvfVariant));
    files.push({ source: 'dvf', name: DEMO_FILES.dvf, ...dvf.geo });
    files.push({ source: 'dvf', name: DEMO_FILES.dvfVariant, ...dvf.variant });
  }
  let permits: Awaited<ReturnType<typeof writeSitadel>> = [];
  if (want('permis')) {
    step(`Permis Sitadel (${sizes.permis} autorisations sur quatre listes)…`);
    permits = await writeSitadel(ctx, sizes.permis, picker, companies, path);
    for (const p of permits) files.push({ source: 'permis', name: p.name, path: p.path, rows: p.rows, bytes: p.bytes });
  }

  return {
    outDir: options.outDir,
    scale,
    seed,
    today: isoDay(ctx.today),
    files,
    counts: {
      entreprises: sirene.unites.rows,
      etablissements: sirene.etablissements.rows,
      rge: rge.rows,
      registre: rne.rows,
      comptes: accounts.rows,
      avis: boamp.rows,
      attributions2019: d2019.rows,
      attributions2024: d2024.rows,
      annonces: bodacc?.rows ?? 0,
      deliberations: minutes.rows,
      publications: posts.rows,
      contacts: people.rows,
      ventesLignes: dvf?.geo.rows ?? 0,
      ventesLignesVariante: dvf?.variant.rows ?? 0,
      ventes: dvf?.mutations ?? 0,
      permis: permits.reduce((n, p) => n + p.rows, 0),
      permisAutorises45Jours: permits.reduce((n, p) => n + p.authorisedLast45Days, 0),
      dossiersDce: dceFiles,
    },
    bodaccShowcase: bodacc?.showcase ?? { id: '', siren: '' },
    durationMs: Math.round(performance.now() - started),
  };
}
