// Demo property sales in the DVF formats as published: the geo-dvf CSV (`,`-separated, 40
// columns, one line per parcel, premises or piece of land of a mutation, the mutation's
// value repeated on each, lines of a mutation consecutive, mutations by date) and the DVF
// Etalab variant (`numero_disposition` not padded, street names quoted, two decimals, the
// `section_prefixe` column added). Realistic prices per m² by department and by kind of
// premises, over the last two years (DVF is published with a delay of a few months).
// No seller nor buyer: DVF has none.
import { COMMUNES, departement, registerText, type Commune } from './communes.js';
import type { DemoContext } from './companies.js';
import { streetName } from './names.js';
import { rngFor, Weighted, type Rng } from './prng.js';
import { FileWriter, csvLine, isoDay, yearOfDay } from './util.js';

export const DVF_COLUMNS = [
  'id_mutation', 'date_mutation', 'numero_disposition', 'nature_mutation', 'valeur_fonciere', 'adresse_numero', 'adresse_suffixe',
  'adresse_nom_voie', 'adresse_code_voie', 'code_postal', 'code_commune', 'nom_commune', 'code_departement', 'ancien_code_commune',
  'ancien_nom_commune', 'id_parcelle', 'ancien_id_parcelle', 'numero_volume', 'lot1_numero', 'lot1_surface_carrez', 'lot2_numero',
  'lot2_surface_carrez', 'lot3_numero', 'lot3_surface_carrez', 'lot4_numero', 'lot4_surface_carrez', 'lot5_numero', 'lot5_surface_carrez',
  'nombre_lots', 'code_type_local', 'type_local', 'surface_reelle_bati', 'nombre_pieces_principales', 'code_nature_culture', 'nature_culture',
  'code_nature_culture_speciale', 'nature_culture_speciale', 'surface_terrain', 'longitude', 'latitude',
] as const;

/** Median price per m² of flats by department (euros, orders of magnitude of 2024-2025); others: 1,900. */
const FLAT_M2: Readonly<Record<string, number>> = {
  '75': 10200, '92': 7200, '94': 5200, '93': 4000, '78': 4900, '91': 3300, '95': 3300, '77': 3200, '06': 5300, '74': 5100,
  '69': 4600, '13': 3700, '83': 4400, '33': 4100, '64': 3900, '2A': 4200, '2B': 3600, '73': 4200, '34': 3400, '31': 3500,
  '44': 3700, '35': 3500, '17': 3600, '67': 3200, '85': 3300, '56': 3200, '29': 2400, '22': 2200, '59': 2600, '38': 2700,
  '971': 2900, '972': 2800, '973': 2500, '974': 3000, '976': 2200, '14': 2800, '76': 2400, '84': 2700, '30': 2400, '66': 2600,
  '49': 2500, '37': 2700, '63': 2300, '21': 2500, '57': 2000, '54': 2100, '51': 2400, '45': 2200, '80': 2100, '62': 2000,
};

const NATURE_CULTURES: readonly (readonly [string, string, number])[] = [
  ['T', 'terres', 4], ['P', 'prés', 3], ['BT', 'taillis simples', 1], ['BR', 'futaies résineuses', 1], ['L', 'landes', 1], ['AB', 'terrains a bâtir', 2], ['J', 'jardins', 1],
];

interface Premises {
  code: string;
  type: string;
  surface: number | null;
  pieces: number;
  lots: { numero: string; carrez: number | null }[];
}

interface Line {
  parcel: string;
  section: string;
  premises: Premises | null;
  culture: readonly [string, string] | null;
  terrain: number | null;
}

interface Mutation {
  id: string;
  day: number;
  nature: string;
  value: number;
  commune: Commune;
  numero: string;
  suffixe: string;
  voie: string;
  codeVoie: string;
  lon: number;
  lat: number;
  disposition: number;
  lines: Line[];
}

const COMMUNE_PICKER = new Weighted(COMMUNES.map((c) => [c, c.poids] as const));
const KINDS = new Weighted<'flat' | 'house' | 'dependency' | 'shop' | 'land' | 'mixed'>([
  ['flat', 40],
  ['house', 34],
  ['dependency', 8],
  ['shop', 5],
  ['land', 11],
  ['mixed', 2],
]);
/** In cities (large communes, Paris and its inner ring) flats make most of the sales. */
const CITY_KINDS = new Weighted<'flat' | 'house' | 'dependency' | 'shop' | 'land' | 'mixed'>([
  ['flat', 72],
  ['house', 8],
  ['dependency', 10],
  ['shop', 7],
  ['land', 2],
  ['mixed', 1],
]);
const CITY_DEPARTEMENTS = new Set(['75', '92', '93', '94']);
const VOIE_ABBREVIATIONS: Readonly<Record<string, string>> = { rue: 'RUE', avenue: 'AV', boulevard: 'BD', route: 'RTE' };
const SECTIONS = 'ABCDEHKLMNOPRSTXYZ';

/** Rough size of a commune (its weight) pushes prices up a little. */
function pricePerM2(c: Commune, rng: Rng, factor: number): number {
  const base = FLAT_M2[c.departement] ?? 1900;
  const town = 0.85 + Math.min(c.poids, 10) * 0.03;
  return base * town * factor * Math.exp(0.18 * rng.normal());
}

function parcelId(c: Commune, rng: Rng): { id: string; section: string } {
  const section = `${rng.chance(0.3) ? '0' : SECTIONS[rng.int(0, SECTIONS.length - 1)]}${SECTIONS[rng.int(0, SECTIONS.length - 1)]}`;
  return { id: `${c.code}000${section}${String(rng.int(1, 2999)).padStart(4, '0')}`, section: `000${section}` };
}

function lot(rng: Rng, carrez: number | null): { numero: string; carrez: number | null } {
  return { numero: String(rng.int(1, 480)), carrez };
}

function mutationAt(ctx: DemoContext, index: number, day: number): Mutation {
  const rng = rngFor(ctx.seed, 'dvf', index);
  const commune = COMMUNE_PICKER.pick(rng);
  const kind = (commune.poids >= 8 || CITY_DEPARTEMENTS.has(commune.departement) ? CITY_KINDS : KINDS).pick(rng);
  const region = departement(commune.departement).region;
  const street = streetName(rng, region);
  const [word, ...rest] = street.split(' ');
  const lines: Line[] = [];
  let nature = 'Vente';
  let value = 0;
  const main = parcelId(commune, rng);
  const dependencies = (n: number, parcel: { id: string; section: string }, culture: Line['culture'], terrain: number | null) => {
    for (let i = 0; i < n; i++) {
      lines.push({ parcel: parcel.id, section: parcel.section, premises: { code: '3', type: 'Dépendance', surface: null, pieces: 0, lots: culture ? [] : [lot(rng, null)] }, culture, terrain });
      value += rng.int(5, 25) * 1000;
    }
  };
  if (kind === 'flat' || kind === 'dependency') {
    if (kind === 'flat') {
      const surface = Math.max(12, Math.round(58 + 24 * rng.normal()));
      const carrez = rng.chance(0.6) ? Math.round((surface - rng.next() * 2) * 100) / 100 : null;
      lines.push({ parcel: main.id, section: main.section, premises: { code: '2', type: 'Appartement', surface, pieces: Math.max(1, Math.min(7, Math.round(surface / 19))), lots: [lot(rng, carrez)] }, culture: null, terrain: null });
      if (rng.chance(0.06)) nature = "Vente en l'état futur d'achèvement";
      value = surface * pricePerM2(commune, rng, nature === 'Vente' ? 1 : 1.25);
    }
    dependencies(kind === 'flat' ? rng.int(0, 2) : rng.int(1, 2), main, null, null);
    // DVF repeats some lines identically.
    if (lines.length > 1 && rng.chance(0.02)) lines.push(lines[lines.length - 1] as Line);
  } else if (kind === 'house' || kind === 'mixed') {
    const surface = Math.max(35, Math.round(98 + 32 * rng.normal()));
    const terrain = rng.int(150, 2500);
    const sols = ['S', 'sols'] as const;
    lines.push({ parcel: main.id, section: main.section, premises: { code: '1', type: 'Maison', surface, pieces: Math.max(2, Math.min(9, Math.round(surface / 22))), lots: [] }, culture: sols, terrain });
    if (rng.chance(0.35)) {
      const garden = parcelId(commune, rng);
      lines.push({ parcel: garden.id, section: garden.section, premises: null, culture: ['AG', "terrains d'agrément"], terrain: rng.int(100, 1200) });
    }
    value = surface * pricePerM2(commune, rng, 0.88);
    dependencies(rng.chance(0.4) ? 1 : 0, main, sols, terrain);
    if (kind === 'mixed') {
      const shop = Math.round(40 + 60 * rng.next());
      lines.push({ parcel: main.id, section: main.section, premises: { code: '4', type: 'Local industriel. commercial ou assimilé', surface: shop, pieces: 0, lots: [] }, culture: sols, terrain });
      value += shop * pricePerM2(commune, rng, 0.6);
    }
  } else if (kind === 'shop') {
    const n = rng.chance(0.8) ? 1 : 2;
    for (let i = 0; i < n; i++) {
      const surface = Math.max(15, Math.round(90 + 80 * rng.normal() ** 2));
      lines.push({ parcel: main.id, section: main.section, premises: { code: '4', type: 'Local industriel. commercial ou assimilé', surface, pieces: 0, lots: rng.chance(0.5) ? [lot(rng, null)] : [] }, culture: null, terrain: null });
      value += surface * pricePerM2(commune, rng, 0.65);
    }
  } else {
    const building = rng.chance(0.45);
    const n = building ? 1 : rng.int(1, 4);
    const cultures = new Weighted(NATURE_CULTURES.map(([code, label, w]) => [[code, label] as const, w] as const));
    for (let i = 0; i < n; i++) {
      const parcel = i === 0 ? main : parcelId(commune, rng);
      const terrain = building ? rng.int(300, 1500) : rng.int(800, 30000);
      lines.push({ parcel: parcel.id, section: parcel.section, premises: null, culture: building ? ['AB', 'terrains a bâtir'] : cultures.pick(rng), terrain });
      value += terrain * (building ? (FLAT_M2[commune.departement] ?? 1900) / 25 : 0.6) * Math.exp(0.3 * rng.normal());
    }
    nature = building ? (rng.chance(0.5) ? 'Vente terrain à bâtir' : 'Vente') : rng.chance(0.05) ? 'Expropriation' : rng.chance(0.05) ? 'Echange' : 'Vente';
  }
  if (nature === 'Vente' && rng.chance(0.01)) nature = 'Adjudication';
  const lonLat = { lon: commune.lon + (rng.next() - 0.5) * 0.03, lat: commune.lat + (rng.next() - 0.5) * 0.02 };
  const roundTo = value > 20000 ? 100 : 1;
  return {
    id: '',
    day,
    nature,
    value: Math.max(1, Math.round(value / roundTo) * roundTo),
    commune,
    numero: String(rng.int(1, 120)),
    suffixe: rng.chance(0.03) ? 'B' : '',
    voie: `${VOIE_ABBREVIATIONS[word as string] ?? registerText(word as string)} ${registerText(rest.join(' '))}`,
    codeVoie: rng.chance(0.2) ? `B${String(rng.int(1, 999)).padStart(3, '0')}` : String(rng.int(10, 9999)).padStart(4, '0'),
    lon: lonLat.lon,
    lat: lonLat.lat,
    disposition: rng.chance(0.97) ? 1 : 2,
    lines,
  };
}

/** A number as geo-dvf writes it: no trailing zeros. */
const plain = (n: number | null) => (n === null ? '' : String(n));
/** As the DVF Etalab variant writes it: two decimals. */
const twoDecimals = (n: number | null) => (n === null ? '' : n.toFixed(2));

function fields(m: Mutation, line: Line, variant: boolean): string[] {
  const p = line.premises;
  const lots: string[] = [];
  for (let i = 0; i < 5; i++) {
    const l = p?.lots[i];
    lots.push(l ? l.numero : '', l ? (variant ? twoDecimals(l.carrez) : plain(l.carrez)) : '');
  }
  const number = variant ? twoDecimals : plain;
  const row = [
    m.id,
    isoDay(m.day),
    variant ? String(m.disposition) : String(m.disposition).padStart(6, '0'),
    m.nature,
    number(m.value),
    p ? m.numero : '',
    p ? m.suffixe : '',
    m.voie,
    m.codeVoie,
    m.commune.codePostal,
    m.commune.code,
    m.commune.nom,
    m.commune.departement,
    '',
    '',
    line.parcel,
    '',
    '',
    ...lots,
    String(p?.lots.length ?? 0),
    p?.code ?? '',
    p?.type ?? '',
    p ? number(p.surface) : '',
    p ? String(p.pieces) : '',
    line.culture?.[0] ?? '',
    line.culture?.[1] ?? '',
    '',
    '',
    plain(line.terrain),
    m.lon.toFixed(variant ? 7 : 6),
    m.lat.toFixed(variant ? 7 : 6),
  ];
  if (variant) row.push(line.section);
  return row;
}

/** The variant quotes street names, whatever they hold. */
function variantLine(values: string[]): string {
  return values.map((v, i) => (i === 7 ? `"${v.replace(/"/g, '""')}"` : v.includes(',') || v.includes('"') ? `"${v.replace(/"/g, '""')}"` : v)).join(',') + '\n';
}

/** Every mutation this many goes to the DVF Etalab variant file instead of the geo-dvf one. */
export const VARIANT_EVERY = 50;
/** Lines per mutation on average, to spread the dates over the window. */
const LINES_PER_MUTATION = 1.8;

export interface DvfWritten {
  geo: { path: string; rows: number; bytes: number };
  variant: { path: string; rows: number; bytes: number };
  mutations: number;
}

/**
 * Writes at least `rows` lines of geo-dvf (whole mutations), by date over the last two
 * years up to a month before `today`, and the variant file (every VARIANT_EVERY-th mutation).
 */
export async function writeDvf(ctx: DemoContext, rows: number, geoPath: string, variantPath: string): Promise<DvfWritten> {
  const geo = await FileWriter.open(geoPath);
  const variant = await FileWriter.open(variantPath);
  try {
    geo.push(csvLine(DVF_COLUMNS));
    variant.push(csvLine([...DVF_COLUMNS, 'section_prefixe']));
    const first = ctx.today - 730;
    const span = 700;
    const expected = Math.max(1, Math.ceil(rows / LINES_PER_MUTATION));
    const sequence = new Map<number, number>();
    let geoRows = 0;
    let variantRows = 0;
    let index = 0;
    while (geoRows < rows) {
      const day = first + Math.min(span, Math.floor((index * span) / expected));
      const m = mutationAt(ctx, index, day);
      const year = yearOfDay(day);
      const n = (sequence.get(year) ?? 0) + 1;
      sequence.set(year, n);
      m.id = `${year}-${n}`;
      if ((index + 1) % VARIANT_EVERY === 0) {
        for (const line of m.lines) variant.push(variantLine(fields(m, line, true)));
        variantRows += m.lines.length;
        if (variant.full) await variant.flush();
      } else {
        for (const line of m.lines) geo.push(csvLine(fields(m, line, false)));
        geoRows += m.lines.length;
        if (geo.full) await geo.flush();
      }
      index += 1;
    }
    return {
      geo: { path: geoPath, rows: geoRows, bytes: await geo.close() },
      variant: { path: variantPath, rows: variantRows, bytes: await variant.close() },
      mutations: index,
    };
  } catch (err) {
    await geo.abort();
    await variant.abort();
    throw err;
  }
}
