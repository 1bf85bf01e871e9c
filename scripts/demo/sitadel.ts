// Sitadel lists of building permits (SDES), in the layout published today: `;`-separated,
// two header lines (the columns' labels, then their codes), texts quoted, numbers bare, one
// file per list: authorisations creating housing (`TYPE_DAU`/`NUM_DAU`/`ETAT_DAU`, PC or
// DP), creating non-residential premises (same columns), demolition (`NUM_PD`/`ETAT_PD`)
// and development permits (`NUM_PA`/`ETAT_PA`). The demolition and development headers are
// those of the SDES release 2026-01 word for word; the housing and premises ones add the
// columns of their lists that the importer reads. Applicants: about half the demo
// construction companies (legal persons, so that `SIREN_DEM` finds them in SIRENE), public
// bodies (the demo communes and departments), and private persons, never named (the real
// lists name legal persons only) but with their postal code and locality, as published.
import type { Buyer, BuyerPicker } from './buyers.js';
import type { Company, CompanyIndex, DemoContext } from './companies.js';
import { COMMUNES, departement, registerText, sireneCommuneLabel, type Commune } from './communes.js';
import { address } from './names.js';
import { rngFor, Weighted, type Rng } from './prng.js';
import { FileWriter, isoDay, yearOfDay } from './util.js';
import { REGIONS } from '../../src/domains/reference/lists.js';

export type SitadelList = 'logements' | 'locaux' | 'demolir' | 'amenager';

/** The share of each list in the demo set (roughly the real lists' sizes). */
export const LIST_SHARES: Readonly<Record<SitadelList, number>> = { logements: 0.55, locaux: 0.2, demolir: 0.1, amenager: 0.15 };

const DEMOLIR_LABELS = [
  'Code de la région du lieu des travaux - Code de la zone', 'Code de la région du lieu des travaux - Libellé de la zone',
  'Code du département du lieu des travaux - Code de la zone', 'Code du département du lieu des travaux - Libellé de la zone',
  'Code de la commune du lieu des travaux', 'Numéro d\'enregistrement du permis de démolir (PD)', "Etat d'avancement du projet",
  "Date réelle d'autorisation initiale", 'Année de dépôt de la DAU',
  'Date (mois) de prise en compte (DPC) du premier évènement reçu dans Sitadel (dépôt de la demande ou autorisation)',
  "Date (mois) de prise en compte (DPC) de l'autorisation initiale", 'Date (mois) (DPC) de dernière mise à jour des données',
  "Code d'activité principale de l'établissement d'un demandeur avéré en tant que personne morale",
  "Catégorie juridique d'un demandeur avéré en tant que personne morale", "Dénomination d'un demandeur avéré en tant que personne morale",
  "Numéro SIREN d'un demandeur avéré en tant que personne morale", "Numéro SIRET d'un demandeur avéré en tant que personne morale",
  'Code postal du demandeur', 'Localité du demandeur', 'Indicateur de recours à un architecte', 'Numéro de voie du terrain', 'Type de voie du terrain',
  'Libellé de la voie du terrain', 'Lieu-dit du terrain', 'Localité du terrain', 'Code postal du terrain', 'Section cadastrale 1',
  'Numéro parcelle cadastrale 1', 'Section cadastrale 2', 'Numéro parcelle cadastrale 2', 'Section cadastrale 3', 'Numéro parcelle cadastrale 3',
  'Superficie du terrain', 'Code zone opératoire',
];
const DEMOLIR_CODES = [
  'REG_CODE', 'REG_LIBELLE', 'DEP_CODE', 'DEP_LIBELLE', 'COMM', 'NUM_PD', 'ETAT_PD', 'DATE_REELLE_AUTORISATION', 'AN_DEPOT', 'DPC_PREM', 'DPC_AUT',
  'DPC_DERN', 'APE_DEM', 'CJ_DEM', 'DENOM_DEM', 'SIREN_DEM', 'SIRET_DEM', 'CODPOST_DEM', 'LOCALITE_DEM', 'REC_ARCHI', 'ADR_NUM_TER',
  'ADR_TYPEVOIE_TER', 'ADR_LIBVOIE_TER', 'ADR_LIEUDIT_TER', 'ADR_LOCALITE_TER', 'ADR_CODPOST_TER', 'SEC_CADASTRE1', 'NUM_CADASTRE1', 'SEC_CADASTRE2',
  'NUM_CADASTRE2', 'SEC_CADASTRE3', 'NUM_CADASTRE3', 'SUPERFICIE_TERRAIN', 'ZONE_OP',
];

/** The columns of every list after the number and state ones (development, housing and premises lists). */
const WORKSITE = [
  ['DATE_REELLE_AUTORISATION', 'Date réelle d’autorisation initiale'],
  ['DATE_REELLE_DOC', 'Date réelle d’ouverture de chantier'],
  ['DATE_REELLE_DAACT', 'Date réelle d’achèvement des travaux'],
  ['AN_DEPOT', 'Année de dépôt de la DAU'],
  ['DPC_PREM', 'Date (mois) de prise en compte DPC du premier évènement reçu dans Sitadel (dépôt de la demande ou autorisation)'],
  ['DPC_AUT', 'Date (mois) de prise en compte DPC de l’autorisation initiale'],
  ['DPC_DOC', 'Date (mois) de prise en compte DPC de l’ouverture du chantier'],
  ['DPC_DERN', 'Date de dernière mise à jour des données'],
] as const;

function pairs(list: SitadelList): (readonly [string, string])[] {
  if (list === 'demolir') return DEMOLIR_CODES.map((c, i) => [c, DEMOLIR_LABELS[i] as string] as const);
  const common = DEMOLIR_CODES.slice(0, 5).map((c, i) => [c, (DEMOLIR_LABELS[i] as string).replace(/'/g, '’')] as const);
  const after = DEMOLIR_CODES.slice(12).map((c, i) => [c, (DEMOLIR_LABELS[i + 12] as string).replace(/'/g, '’')] as const);
  const kind: (readonly [string, string])[] =
    list === 'amenager'
      ? [['NUM_PA', 'Numéro d’enregistrement du permis d’aménager (PA)'], ['ETAT_PA', 'Etat d’avancement du projet']]
      : [['TYPE_DAU', 'Type d’autorisation d’urbanisme (DAU)'], ['NUM_DAU', 'Numéro d’enregistrement de la DAU'], ['ETAT_DAU', 'Etat d’avancement du projet']];
  const project: (readonly [string, string])[] =
    list === 'amenager'
      ? []
      : [
          ['NATURE_PROJET_DECLAREE', 'Nature du projet déclarée par le demandeur'],
          ['NATURE_PROJET_COMPLETEE', 'Nature du projet complétée par le service instructeur'],
          ...(list === 'logements'
            ? ([
                ['NB_LGT_TOT_CREES', 'Nombre total de logements créés'],
                ['NB_LGT_IND_CREES', 'Nombre de logements individuels créés'],
                ['NB_LGT_COL_CREES', 'Nombre de logements collectifs créés'],
              ] as const)
            : []),
          ['SURF_HAB_AVANT', 'Surface de plancher d’habitation avant travaux'],
          ['SURF_HAB_CREEE', 'Surface de plancher d’habitation créée'],
          ['SURF_LOC_AVANT', 'Surface de plancher de locaux non résidentiels avant travaux'],
          ['SURF_LOC_CREEE', 'Surface de plancher de locaux non résidentiels créée'],
        ];
  return [...common, ...kind, ...WORKSITE, ...after, ...project];
}

/** Columns written bare (numbers), as the SDES writes them; every other non-empty value is quoted. */
const BARE = new Set(['ETAT_PD', 'ETAT_PA', 'ETAT_DAU', 'AN_DEPOT', 'CJ_DEM', 'SUPERFICIE_TERRAIN', 'ZONE_OP', 'NATURE_PROJET_DECLAREE', 'NATURE_PROJET_COMPLETEE']);
const isBare = (code: string) => BARE.has(code) || code.startsWith('NB_') || code.startsWith('SURF_');

const field = (code: string, value: string | number | null | undefined): string => {
  if (value === null || value === undefined || value === '') return '';
  return isBare(code) ? String(value) : `"${String(value).replace(/"/g, '""')}"`;
};

const REGION_NAMES = new Map(REGIONS.map((r) => [r.code, r.nom]));
const COMMUNE_PICK = new Weighted(COMMUNES.map((c, i) => [i, c.poids] as const));
const COMMUNES_BY_DEPT = new Map<string, number[]>();
COMMUNES.forEach((c, i) => COMMUNES_BY_DEPT.set(c.departement, [...(COMMUNES_BY_DEPT.get(c.departement) ?? []), i]));

/** Builders by list: developers and house builders, demolition firms, developers of plots. */
const NAFS: Readonly<Record<SitadelList, readonly string[]>> = {
  logements: ['41.10A', '41.10B', '41.20A', '41.20B'],
  locaux: ['41.10C', '41.10D', '41.20B', '42.99Z'],
  demolir: ['43.11Z', '43.12A', '41.20B'],
  amenager: ['41.10A', '42.99Z', '43.12A'],
};
/** Applicant kinds by list: a company, a public body, a private person. */
const APPLICANTS: Readonly<Record<SitadelList, Weighted<'company' | 'public' | 'private'>>> = {
  logements: new Weighted([['company', 45], ['public', 5], ['private', 50]]),
  locaux: new Weighted([['company', 55], ['public', 35], ['private', 10]]),
  demolir: new Weighted([['company', 50], ['public', 25], ['private', 25]]),
  amenager: new Weighted([['company', 55], ['public', 20], ['private', 25]]),
};
const LETTERS = ['A', 'A', 'A', 'B', 'C', 'D', 'M'];
const SECTIONS = 'ABCDEHKLMN';

interface Applicant {
  ape: string;
  cj: string;
  denom: string;
  siren: string;
  siret: string;
  codePostal: string;
  localite: string;
}

function companyApplicant(c: Company): Applicant {
  return {
    ape: c.head.naf,
    cj: c.categorie,
    denom: c.officialName,
    siren: c.siren,
    siret: c.head.siret,
    codePostal: c.head.commune.codePostal,
    localite: sireneCommuneLabel(c.head.commune),
  };
}

function publicApplicant(b: Buyer): Applicant {
  return {
    ape: '84.11Z',
    cj: b.kind === 'commune' ? '7210' : '7220',
    denom: registerText(b.nom),
    siren: b.siret.slice(0, 9),
    siret: b.siret,
    codePostal: b.seat.codePostal,
    localite: sireneCommuneLabel(b.seat),
  };
}

const month = (day: number) => isoDay(day).slice(0, 7);

/** Writes one list; `numbers` keeps the registration numbers unique over all the lists. */
async function writeList(
  ctx: DemoContext,
  list: SitadelList,
  count: number,
  picker: BuyerPicker,
  companies: CompanyIndex,
  numbers: Map<string, number>,
  path: string,
): Promise<{ rows: number; bytes: number; authorisedLast45Days: number }> {
  const columns = pairs(list);
  const out = await FileWriter.open(path);
  let recent = 0;
  try {
    out.push(`${columns.map(([, label]) => `"${label}"`).join(';')}\n${columns.map(([code]) => `"${code}"`).join(';')}\n`);
    for (let k = 0; k < count; k++) {
      const values = permitAt(ctx, list, k, picker, companies, numbers);
      if (values.DATE_REELLE_AUTORISATION !== undefined && String(values.DATE_REELLE_AUTORISATION) >= isoDay(ctx.today - 45) && values.ETAT !== 4) recent += 1;
      const state = list === 'demolir' ? 'ETAT_PD' : list === 'amenager' ? 'ETAT_PA' : 'ETAT_DAU';
      values[state] = values.ETAT as number;
      out.push(`${columns.map(([code]) => field(code, values[code])).join(';')}\n`);
      if (out.full) await out.flush();
    }
    return { rows: count, bytes: await out.close(), authorisedLast45Days: recent };
  } catch (err) {
    await out.abort();
    throw err;
  }
}

function registrationNumber(rng: Rng, kind: string, commune: Commune, depositYear: number, numbers: Map<string, number>): string {
  const dep = commune.departement.length === 3 ? commune.departement : `0${commune.departement}`;
  const prefix = `${dep}${commune.code.slice(-3)}${String(depositYear % 100).padStart(2, '0')}`;
  for (let letter = LETTERS.indexOf(rng.pick(LETTERS)); ; letter = (letter + 1) % 26) {
    const l = letter < LETTERS.length ? (LETTERS[letter] as string) : String.fromCharCode(65 + letter);
    const key = `${kind}${prefix}${l}`;
    const next = (numbers.get(key) ?? 0) + 1;
    if (next > 9999) continue;
    numbers.set(key, next);
    return `${prefix}${l}${String(next).padStart(4, '0')}`;
  }
}

function permitAt(
  ctx: DemoContext,
  list: SitadelList,
  k: number,
  picker: BuyerPicker,
  companies: CompanyIndex,
  numbers: Map<string, number>,
): Record<string, string | number | null> {
  const rng = rngFor(ctx.seed, `sitadel-${list}`, k);
  const who = APPLICANTS[list].pick(rng);
  let applicant: Applicant | null = null;
  let commune: Commune;
  if (who === 'company') {
    let company: Company | null = null;
    for (let attempt = 0; attempt < 8 && !company; attempt++) {
      const c = companies.company(companies.pick(rng, rng.pick(REGIONS).code, NAFS[list]));
      if (!c.individual) company = c;
    }
    if (company) applicant = companyApplicant(company);
    const near = company ? (COMMUNES_BY_DEPT.get(company.head.commune.departement) ?? []) : [];
    commune = near.length && rng.chance(0.75) ? (COMMUNES[rng.pick(near)] as Commune) : (COMMUNES[COMMUNE_PICK.pickIndex(rng)] as Commune);
  } else if (who === 'public') {
    const buyer = picker.pick(rng);
    applicant = publicApplicant(buyer);
    const inDept = COMMUNES_BY_DEPT.get(buyer.departement) ?? [];
    commune = buyer.kind === 'commune' ? buyer.seat : (COMMUNES[rng.pick(inDept)] as Commune);
  } else {
    commune = COMMUNES[COMMUNE_PICK.pickIndex(rng)] as Commune;
  }
  // Authorisations of the last three years, crowding towards today (some in the last 45 days).
  let authorised = ctx.today - 3 - Math.floor(Math.pow(rng.next(), 1.6) * 3 * 365);
  let deposit = authorised - rng.int(30, 150);
  let kind = list === 'demolir' ? 'PD' : list === 'amenager' ? 'PA' : rng.chance(list === 'logements' ? 0.75 : 0.6) ? 'PC' : 'DP';
  // The showcase permit of the recipes (permis_consulter): a fixed number in Quimper.
  const showcase = list === 'logements' && k === 0;
  if (showcase) {
    commune = COMMUNES.find((c) => c.code === '29232') as Commune;
    kind = 'PC';
    deposit = Math.min(ctx.today - 400, Date.UTC(2024, 6, 8) / 86_400_000);
    authorised = deposit + 133;
  }
  const number = showcase ? '02923224A0001' : registrationNumber(rng, kind, commune, yearOfDay(deposit), numbers);

  // The life of the permit: cancelled now and then, started and finished as it ages.
  let state = 2;
  let doc: number | null = null;
  let daact: number | null = null;
  const age = ctx.today - authorised;
  if (rng.chance(0.03)) state = 4;
  else if (list === 'demolir') state = age > 365 && rng.chance(0.4) ? 6 : 2;
  else if (age > 20 && rng.chance(age < 60 ? 0.1 : Math.min(0.85, age / 500))) {
    state = 5;
    doc = authorised + rng.int(5, Math.max(5, Math.min(age - 1, 300)));
    const since = ctx.today - doc;
    if (since > 150 && rng.chance(Math.min(0.8, since / 700))) {
      state = 6;
      daact = doc + rng.int(120, Math.max(120, Math.min(700, since - 1)));
    }
  }
  if (showcase) {
    state = 5;
    doc = authorised + 90;
    daact = null;
  }
  const last = Math.min(ctx.today, (daact ?? doc ?? authorised) + rng.int(0, 40));

  const region = departement(commune.departement).region;
  const a = address(rng, region);
  const street = a.typeVoie === 'LD' ? null : a;
  const v: Record<string, string | number | null> = {
    REG_CODE: region,
    REG_LIBELLE: REGION_NAMES.get(region) ?? null,
    DEP_CODE: commune.departement,
    DEP_LIBELLE: departement(commune.departement).nom,
    COMM: commune.code,
    TYPE_DAU: list === 'logements' || list === 'locaux' ? kind : null,
    NUM_DAU: list === 'logements' || list === 'locaux' ? number : null,
    NUM_PD: list === 'demolir' ? number : null,
    NUM_PA: list === 'amenager' ? number : null,
    ETAT: state,
    DATE_REELLE_AUTORISATION: isoDay(authorised),
    DATE_REELLE_DOC: doc === null ? null : isoDay(doc),
    DATE_REELLE_DAACT: daact === null ? null : isoDay(daact),
    AN_DEPOT: yearOfDay(deposit),
    DPC_PREM: month(Math.min(ctx.today, deposit + rng.int(0, 40))),
    DPC_AUT: month(Math.min(ctx.today, authorised + rng.int(0, 40))),
    DPC_DOC: doc === null ? null : month(Math.min(ctx.today, doc + rng.int(0, 40))),
    DPC_DERN: null,
    APE_DEM: applicant?.ape ?? null,
    CJ_DEM: applicant?.cj ?? null,
    DENOM_DEM: applicant?.denom ?? null,
    SIREN_DEM: applicant?.siren ?? null,
    SIRET_DEM: applicant?.siret ?? null,
    // A private applicant's postal code and locality are published (never imported).
    CODPOST_DEM: applicant?.codePostal ?? (rng.chance(0.8) ? commune.codePostal : null),
    LOCALITE_DEM: applicant?.localite ?? (rng.chance(0.8) ? sireneCommuneLabel(commune) : null),
    REC_ARCHI: null,
    ADR_NUM_TER: street?.numero || null,
    ADR_TYPEVOIE_TER: street?.typeVoie ?? null,
    ADR_LIBVOIE_TER: street ? registerText(street.libelleVoie) : null,
    ADR_LIEUDIT_TER: street ? null : registerText(a.libelleVoie),
    ADR_LOCALITE_TER: sireneCommuneLabel(commune),
    // As in the real lists: a postal code, or the department alone, or « 0 », or nothing.
    ADR_CODPOST_TER: rng.chance(0.8) ? commune.codePostal : rng.pick([commune.departement, '0', '']),
    SEC_CADASTRE1: `${SECTIONS[rng.int(0, SECTIONS.length - 1)]}${rng.chance(0.5) ? SECTIONS[rng.int(0, SECTIONS.length - 1)] : ''}`,
    NUM_CADASTRE1: String(rng.int(1, 2500)),
    SUPERFICIE_TERRAIN: rng.chance(0.12) ? 0 : list === 'amenager' ? rng.int(2000, 60000) : rng.int(180, 4000),
  };
  // The last update is the month of the latest event taken into account.
  v.DPC_DERN = [v.DPC_PREM, v.DPC_AUT, v.DPC_DOC, month(last)].filter((m): m is string => typeof m === 'string').sort().at(-1) as string;
  let habitation = 0;
  let locaux = 0;
  if (list === 'logements') {
    const collective = kind === 'PC' && applicant !== null && rng.chance(0.6);
    const lgt = collective ? rng.int(4, 90) : 1;
    habitation = kind === 'DP' ? rng.int(12, 60) : collective ? lgt * rng.int(52, 78) : rng.int(75, 190);
    v.NB_LGT_TOT_CREES = lgt;
    v.NB_LGT_IND_CREES = collective ? 0 : lgt;
    v.NB_LGT_COL_CREES = collective ? lgt : 0;
    v.NATURE_PROJET_DECLAREE = kind === 'DP' || rng.chance(0.1) ? 2 : 1;
  } else if (list === 'locaux') {
    locaux = kind === 'DP' ? rng.int(10, 80) : Math.round(Math.exp(rng.next() * 7.5 + 3.5));
    v.NATURE_PROJET_DECLAREE = kind === 'DP' || rng.chance(0.35) ? 2 : 1;
  }
  if (list === 'logements' || list === 'locaux') {
    v.NATURE_PROJET_COMPLETEE = rng.chance(0.7) ? (v.NATURE_PROJET_DECLAREE ?? null) : null;
    v.SURF_HAB_AVANT = v.NATURE_PROJET_DECLAREE === 2 ? rng.int(60, 200) : 0;
    v.SURF_HAB_CREEE = habitation;
    v.SURF_LOC_AVANT = 0;
    v.SURF_LOC_CREEE = locaux;
  }
  v.REC_ARCHI = habitation + locaux > 150 || (applicant !== null && list !== 'demolir') ? 'true' : 'false';
  return v;
}

export const SITADEL_FILES: Readonly<Record<SitadelList, string>> = {
  logements: 'sitadel/Liste-des-autorisations-durbanisme-creant-des-logements.csv',
  locaux: 'sitadel/Liste-des-autorisations-durbanisme-creant-des-locaux-non-residentiels.csv',
  demolir: 'sitadel/Liste-des-permis-de-demolir.csv',
  amenager: 'sitadel/Liste-des-permis-damenager.csv',
};

/** The four lists, `total` permits shared among them; each list's rows and bytes. */
export async function writeSitadel(
  ctx: DemoContext,
  total: number,
  picker: BuyerPicker,
  companies: CompanyIndex,
  pathOf: (name: string) => string,
): Promise<{ list: SitadelList; name: string; path: string; rows: number; bytes: number; authorisedLast45Days: number }[]> {
  // The showcase permit's number is taken: the counter of its commune, year and letter starts after it.
  const numbers = new Map<string, number>([['PC02923224A', 1]]);
  const lists = Object.keys(LIST_SHARES) as SitadelList[];
  const out = [];
  let written = 0;
  for (const [i, list] of lists.entries()) {
    const count = i === lists.length - 1 ? total - written : Math.round(total * LIST_SHARES[list]);
    written += count;
    const path = pathOf(SITADEL_FILES[list]);
    out.push({ list, name: SITADEL_FILES[list], path, ...(await writeList(ctx, list, count, picker, companies, numbers, path)) });
  }
  return out;
}
