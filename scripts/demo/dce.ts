// Consultation files (DCE) of the demo: for a share of the demo calls for tenders for works,
// a zip as buyers publish them: the RC (rules of the consultation, with the documents to
// provide and the qualifications asked), the CCAP (PDF, or ODT for one in five), a CCTP (DOCX)
// and a DPGF (XLSX) per lot, one lot per folder when the works are split in lots (and one
// lot as a zip inside the zip for one file in ten), and for one file in seven a scanned
// plan page without text. `dce.json`, the manifest of `npm run import -- dce <folder>`, lists the
// files (`dce-NNNN.zip`) and the notice each belongs to.
// Plus one showcase file, on the platform id DEMO_DCE_SHOWCASE, for the recipes.
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Tender } from './boamp.js';
import { MANIFEST_NAME } from '../../src/domains/dce/manifest.js';
import { rngFor, type Rng } from './prng.js';
import { docxDocument, odtDocument, pdfDocument, xlsxDocument, zipOf, type PdfPage } from './documents.js';

/** The annonce_id of the showcase file (a platform's id, matched to no demo notice). */
export const DEMO_DCE_SHOWCASE = '26-90001';

export interface DemoDceFile {
  /** `-`, or the annonce_id of the notice. */
  target: string;
  /** Relative to the demo folder: `dce/dce-NNNN.zip` (the same names for every seed). */
  name: string;
  bytes: number;
}

/**
 * The qualification an RC asks for a piece of work, by what the work says: slate roofing only
 * for a roof in slate, an electrician's for electricity… First match wins; a work none of
 * them names asks for the trade's professional qualification in general terms.
 */
const QUALIFICATIONS: readonly (readonly [RegExp, string])[] = [
  [/ardoise/i, 'Qualibat 3194 (couverture en ardoise)'],
  [/étanchéité/i, 'Qualibat 5322 (étanchéité)'],
  [/photovolta/i, 'QualiPV (installations photovoltaïques)'],
  [/électri|courants/i, 'Qualifelec E2'],
  [/isolation|rénovation énergétique/i, 'Qualibat 7131 (isolation thermique) avec la mention RGE'],
  [/couverture|toiture|zinguerie/i, 'Qualibat couverture (en tuiles et en métal) ou équivalent'],
  [/maçonnerie|gros œuvre|pierre/i, 'Qualibat 2112 (maçonnerie)'],
];
const GENERAL_QUALIFICATION = 'les qualifications professionnelles correspondant aux travaux (Qualibat, Qualifelec ou équivalent)';

function qualificationOf(text: string): string | null {
  return QUALIFICATIONS.find(([pattern]) => pattern.test(text))?.[1] ?? null;
}

/** What the RC asks: per lot for a work in lots (the lots that need one), else for the work. */
export function qualificationsAsked(t: Tender): string {
  if (!t.lots.length) return `Qualification exigée ou équivalente : ${qualificationOf(`${t.objet} ${t.description}`) ?? GENERAL_QUALIFICATION}.`;
  const perLot = t.lots.map((l) => [l, qualificationOf(l.intitule)] as const).filter(([, q]) => q !== null);
  if (!perLot.length) return `Chaque candidat justifie, pour les lots auxquels il répond, ${GENERAL_QUALIFICATION}.`;
  return `Qualifications exigées ou équivalentes, pour les lots concernés : ${perLot.map(([l, q]) => `lot ${l.numero} (${l.intitule}) : ${q}`).join(' ; ')}.`;
}
const PIECES_A_FOURNIR = ['le formulaire DC1 ou le DUME', 'le formulaire DC2', 'un mémoire technique', "l'attestation d'assurance décennale en cours de validité", 'les certificats de qualification professionnelle', 'le planning prévisionnel'];

const paragraphsToLines = (paragraphs: string[]): string[] => paragraphs.flatMap((p) => [p, '']);

function rcPages(t: Tender): PdfPage[] {
  return [
    {
      lines: paragraphsToLines([
        'RÈGLEMENT DE LA CONSULTATION',
        `Maître d'ouvrage : ${t.acheteur}`,
        `Objet : ${t.objet}`,
        `Lieu d'exécution : ${t.lieu}`,
        'Article 1 – Objet de la consultation',
        `${t.description} La consultation est passée selon les articles L. 2123-1 et R. 2123-1 du code de la commande publique.`,
        'Article 2 – Conditions de la consultation',
        t.lots.length
          ? `Les travaux sont répartis en ${t.lots.length} lots : ${t.lots.map((l) => `lot ${l.numero} ${l.intitule}`).join(' ; ')}. Les candidats peuvent répondre à un ou plusieurs lots.`
          : 'Les travaux font l’objet d’un marché unique.',
        `Durée d'exécution : ${t.dureeMois} mois à compter de l'ordre de service.`,
      ]),
    },
    {
      lines: paragraphsToLines([
        'Article 3 – Présentation des candidatures et des offres',
        `Chaque candidat produit ${PIECES_A_FOURNIR.join(', ')}.`,
        qualificationsAsked(t),
        'Article 4 – Jugement des offres',
        'Valeur technique : 60 % (méthodologie, moyens humains et matériels, planning) ; prix des prestations : 40 %.',
        'Article 5 – Date limite de réception des offres',
        `Les offres sont remises par voie électronique avant le ${t.deadline.slice(0, 10).split('-').reverse().join('/')} à 12 h.`,
      ]),
    },
  ];
}

function ccapParagraphs(t: Tender): string[] {
  return [
    'CAHIER DES CLAUSES ADMINISTRATIVES PARTICULIÈRES',
    `Marché : ${t.objet}`,
    'Article 1 – Pièces constitutives du marché : l’acte d’engagement, le présent CCAP, le CCTP, la DPGF, le CCAG Travaux 2021.',
    `Article 2 – Délais : ${t.dureeMois} mois, période de préparation d’un mois comprise.`,
    'Article 3 – Pénalités de retard : 1/3000 du montant du marché par jour calendaire de retard.',
    'Article 4 – Retenue de garantie : 5 % du montant des travaux, remplaçable par une garantie à première demande.',
    'Article 5 – Avance : 5 % du montant initial, sauf renonciation du titulaire.',
  ];
}

function cctpParagraphs(t: Tender, lot: { numero: number; intitule: string } | null): string[] {
  const titre = lot ? `Lot ${lot.numero} – ${lot.intitule}` : t.objet;
  return [
    'CAHIER DES CLAUSES TECHNIQUES PARTICULIÈRES',
    titre,
    `1. Généralités. ${t.description}`,
    '2. Prescriptions générales. Les travaux sont exécutés conformément aux DTU en vigueur et aux avis techniques des fabricants.',
    '3. Dépose et évacuation. Les matériaux déposés sont évacués en décharge agréée, bordereaux de suivi des déchets remis au maître d’œuvre.',
    '4. Mise en œuvre. Toiture, isolation, menuiseries ou réseaux selon le lot : chaque ouvrage fait l’objet d’une fiche technique soumise au visa du maître d’œuvre avant commande.',
    '5. Réception. Les essais et autocontrôles sont consignés dans le dossier des ouvrages exécutés.',
  ];
}

function dpgfRows(rng: Rng, lot: { numero: number; intitule: string } | null): (string | number)[][] {
  const prefix = lot ? `${lot.numero}.` : '1.';
  const lines: (string | number)[][] = [['N°', 'Désignation', 'Unité', 'Quantité', 'Prix unitaire HT', 'Montant HT']];
  const items = ['Installation de chantier', 'Dépose des ouvrages existants', 'Fourniture et pose', 'Finitions et raccords', 'Nettoyage et repli'];
  items.forEach((item, i) => lines.push([`${prefix}${i + 1}`, lot ? `${item} – ${lot.intitule}` : item, i === 0 || i === 4 ? 'ens' : 'm²', i === 0 || i === 4 ? 1 : rng.int(20, 600), '', '']));
  return lines;
}

async function dceZip(rng: Rng, t: Tender, index: number): Promise<Buffer> {
  const entries: { name: string; data: Uint8Array }[] = [];
  entries.push({ name: '01 RC.pdf', data: await pdfDocument(rcPages(t), 'Règlement de la consultation') });
  if (index % 5 === 0) entries.push({ name: '02 CCAP.odt', data: await odtDocument(ccapParagraphs(t)) });
  else entries.push({ name: '02 CCAP.pdf', data: await pdfDocument([{ lines: paragraphsToLines(ccapParagraphs(t)) }], 'CCAP') });
  const lots = t.lots.length ? t.lots : [null];
  for (const lot of lots) {
    const folder = lot ? `Lot ${String(lot.numero).padStart(2, '0')} ${lot.intitule}/` : '';
    const pieces = [
      { name: `CCTP${lot ? ` lot ${lot.numero}` : ''}.docx`, data: await docxDocument(cctpParagraphs(t, lot)) },
      { name: `DPGF${lot ? ` lot ${lot.numero}` : ''}.xlsx`, data: await xlsxDocument([{ name: 'DPGF', rows: dpgfRows(rng, lot) }]) },
    ];
    // One file in ten publishes its first lot as a zip of its own inside the file's zip.
    if (lot && lot.numero === 1 && index % 10 === 3) entries.push({ name: `${folder.slice(0, -1)}.zip`, data: await zipOf(pieces) });
    else for (const p of pieces) entries.push({ name: `${folder}${p.name}`, data: p.data });
  }
  if (index % 7 === 2) entries.push({ name: 'Annexe plan de situation.pdf', data: await pdfDocument([{ scan: true }], 'Plan de situation') });
  return zipOf(entries);
}

/** The showcase file: fixed content, for the recipes (« toiture ardoise », an RC, a CCTP). */
function showcase(): Tender {
  return {
    idweb: DEMO_DCE_SHOWCASE,
    objet: 'Réfection de la toiture en ardoise de l’école Jules-Ferry',
    acheteur: 'Commune de Quimper',
    lieu: 'Quimper (29000)',
    description: 'Dépose de la couverture existante, remplacement des liteaux, couverture en ardoise naturelle posée au crochet, zinguerie et descentes.',
    deadline: '2027-01-15T12:00:00+01:00',
    dureeMois: 4,
    lots: [],
  };
}

export async function writeDce(ctx: { seed: number }, count: number, tenders: readonly Tender[], outDir: string, folder: string): Promise<{ files: DemoDceFile[]; bytes: number }> {
  const files: DemoDceFile[] = [];
  let bytes = 0;
  const write = async (name: string, data: Buffer) => {
    const path = join(outDir, name);
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, data);
    bytes += data.length;
    return data.length;
  };
  const nameOf = (i: number) => `${folder}/dce-${String(i).padStart(4, '0')}.zip`;
  files.push({ target: DEMO_DCE_SHOWCASE, name: nameOf(0), bytes: await write(nameOf(0), await dceZip(rngFor(ctx.seed, 'dce', -1), showcase(), 1)) });
  // Tenders spread evenly over the list (all dates and places).
  const step = Math.max(1, Math.floor(tenders.length / Math.max(count, 1)));
  for (let i = 0, k = 0; i < count && k < tenders.length; i++, k += step) {
    const t = tenders[k] as Tender;
    files.push({ target: t.idweb, name: nameOf(i + 1), bytes: await write(nameOf(i + 1), await dceZip(rngFor(ctx.seed, 'dce', i), t, i)) });
  }
  const manifest = { dossiers: files.map((f) => ({ cible: f.target, fichiers: [f.name.slice(folder.length + 1)] })) };
  await write(`${folder}/${MANIFEST_NAME}`, Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`));
  return { files, bytes };
}
