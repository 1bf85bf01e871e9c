// French public reference lists seeded into the database: regions, departments,
// NAF rév. 2 section F sub-classes, CPV 2008 division 45 and the alert sources.
// Pure data plus tiny pure helpers; no runtime imports.

export interface RegionEntry {
  code: string;
  nom: string;
  departements: string[];
}

export interface DepartementEntry {
  code: string;
  nom: string;
  /** INSEE region code; "COM" for the overseas collectivities 975, 977 and 978. */
  region: string;
  outre_mer: boolean;
}

export interface NafEntry {
  /** e.g. "43.21A" */
  code: string;
  libelle: string;
  /** "41" | "42" | "43" */
  division: string;
  /** e.g. "43.2" */
  groupe: string;
}

export interface CpvEntry {
  /** e.g. "45000000-7" */
  code: string;
  libelle: string;
  /** 1 = division (45000000), 2 = group (45200000), 3 = class (45210000), 4 = category (45211000) */
  niveau: number;
  /** code of the parent entry, null for the division */
  parent: string | null;
}

export interface AlertSourceEntry {
  code: string;
  libelle: string;
  surveille: string;
  departements_requis: boolean;
  terme_applique: boolean;
}

// ---------------------------------------------------------------------------
// Regions (INSEE codes, 2016 map) — the 18 regions; 975, 977, 978 belong to none.
// ---------------------------------------------------------------------------

export const REGIONS: readonly RegionEntry[] = [
  { code: '01', nom: 'Guadeloupe', departements: ['971'] },
  { code: '02', nom: 'Martinique', departements: ['972'] },
  { code: '03', nom: 'Guyane', departements: ['973'] },
  { code: '04', nom: 'La Réunion', departements: ['974'] },
  { code: '06', nom: 'Mayotte', departements: ['976'] },
  { code: '11', nom: 'Île-de-France', departements: ['75', '77', '78', '91', '92', '93', '94', '95'] },
  { code: '24', nom: 'Centre-Val de Loire', departements: ['18', '28', '36', '37', '41', '45'] },
  { code: '27', nom: 'Bourgogne-Franche-Comté', departements: ['21', '25', '39', '58', '70', '71', '89', '90'] },
  { code: '28', nom: 'Normandie', departements: ['14', '27', '50', '61', '76'] },
  { code: '32', nom: 'Hauts-de-France', departements: ['02', '59', '60', '62', '80'] },
  { code: '44', nom: 'Grand Est', departements: ['08', '10', '51', '52', '54', '55', '57', '67', '68', '88'] },
  { code: '52', nom: 'Pays de la Loire', departements: ['44', '49', '53', '72', '85'] },
  { code: '53', nom: 'Bretagne', departements: ['22', '29', '35', '56'] },
  {
    code: '75',
    nom: 'Nouvelle-Aquitaine',
    departements: ['16', '17', '19', '23', '24', '33', '40', '47', '64', '79', '86', '87'],
  },
  {
    code: '76',
    nom: 'Occitanie',
    departements: ['09', '11', '12', '30', '31', '32', '34', '46', '48', '65', '66', '81', '82'],
  },
  {
    code: '84',
    nom: 'Auvergne-Rhône-Alpes',
    departements: ['01', '03', '07', '15', '26', '38', '42', '43', '63', '69', '73', '74'],
  },
  { code: '93', nom: "Provence-Alpes-Côte d'Azur", departements: ['04', '05', '06', '13', '83', '84'] },
  { code: '94', nom: 'Corse', departements: ['2A', '2B'] },
];

// ---------------------------------------------------------------------------
// Departments (official COG names): 96 metropolitan, 5 overseas departments,
// 3 overseas collectivities (975, 977, 978, region "COM").
// ---------------------------------------------------------------------------

function metro(code: string, nom: string, region: string): DepartementEntry {
  return { code, nom, region, outre_mer: false };
}

function outreMer(code: string, nom: string, region: string): DepartementEntry {
  return { code, nom, region, outre_mer: true };
}

export const DEPARTEMENTS: readonly DepartementEntry[] = [
  metro('01', 'Ain', '84'),
  metro('02', 'Aisne', '32'),
  metro('03', 'Allier', '84'),
  metro('04', 'Alpes-de-Haute-Provence', '93'),
  metro('05', 'Hautes-Alpes', '93'),
  metro('06', 'Alpes-Maritimes', '93'),
  metro('07', 'Ardèche', '84'),
  metro('08', 'Ardennes', '44'),
  metro('09', 'Ariège', '76'),
  metro('10', 'Aube', '44'),
  metro('11', 'Aude', '76'),
  metro('12', 'Aveyron', '76'),
  metro('13', 'Bouches-du-Rhône', '93'),
  metro('14', 'Calvados', '28'),
  metro('15', 'Cantal', '84'),
  metro('16', 'Charente', '75'),
  metro('17', 'Charente-Maritime', '75'),
  metro('18', 'Cher', '24'),
  metro('19', 'Corrèze', '75'),
  metro('2A', 'Corse-du-Sud', '94'),
  metro('2B', 'Haute-Corse', '94'),
  metro('21', "Côte-d'Or", '27'),
  metro('22', "Côtes-d'Armor", '53'),
  metro('23', 'Creuse', '75'),
  metro('24', 'Dordogne', '75'),
  metro('25', 'Doubs', '27'),
  metro('26', 'Drôme', '84'),
  metro('27', 'Eure', '28'),
  metro('28', 'Eure-et-Loir', '24'),
  metro('29', 'Finistère', '53'),
  metro('30', 'Gard', '76'),
  metro('31', 'Haute-Garonne', '76'),
  metro('32', 'Gers', '76'),
  metro('33', 'Gironde', '75'),
  metro('34', 'Hérault', '76'),
  metro('35', 'Ille-et-Vilaine', '53'),
  metro('36', 'Indre', '24'),
  metro('37', 'Indre-et-Loire', '24'),
  metro('38', 'Isère', '84'),
  metro('39', 'Jura', '27'),
  metro('40', 'Landes', '75'),
  metro('41', 'Loir-et-Cher', '24'),
  metro('42', 'Loire', '84'),
  metro('43', 'Haute-Loire', '84'),
  metro('44', 'Loire-Atlantique', '52'),
  metro('45', 'Loiret', '24'),
  metro('46', 'Lot', '76'),
  metro('47', 'Lot-et-Garonne', '75'),
  metro('48', 'Lozère', '76'),
  metro('49', 'Maine-et-Loire', '52'),
  metro('50', 'Manche', '28'),
  metro('51', 'Marne', '44'),
  metro('52', 'Haute-Marne', '44'),
  metro('53', 'Mayenne', '52'),
  metro('54', 'Meurthe-et-Moselle', '44'),
  metro('55', 'Meuse', '44'),
  metro('56', 'Morbihan', '53'),
  metro('57', 'Moselle', '44'),
  metro('58', 'Nièvre', '27'),
  metro('59', 'Nord', '32'),
  metro('60', 'Oise', '32'),
  metro('61', 'Orne', '28'),
  metro('62', 'Pas-de-Calais', '32'),
  metro('63', 'Puy-de-Dôme', '84'),
  metro('64', 'Pyrénées-Atlantiques', '75'),
  metro('65', 'Hautes-Pyrénées', '76'),
  metro('66', 'Pyrénées-Orientales', '76'),
  metro('67', 'Bas-Rhin', '44'),
  metro('68', 'Haut-Rhin', '44'),
  metro('69', 'Rhône', '84'),
  metro('70', 'Haute-Saône', '27'),
  metro('71', 'Saône-et-Loire', '27'),
  metro('72', 'Sarthe', '52'),
  metro('73', 'Savoie', '84'),
  metro('74', 'Haute-Savoie', '84'),
  metro('75', 'Paris', '11'),
  metro('76', 'Seine-Maritime', '28'),
  metro('77', 'Seine-et-Marne', '11'),
  metro('78', 'Yvelines', '11'),
  metro('79', 'Deux-Sèvres', '75'),
  metro('80', 'Somme', '32'),
  metro('81', 'Tarn', '76'),
  metro('82', 'Tarn-et-Garonne', '76'),
  metro('83', 'Var', '93'),
  metro('84', 'Vaucluse', '93'),
  metro('85', 'Vendée', '52'),
  metro('86', 'Vienne', '75'),
  metro('87', 'Haute-Vienne', '75'),
  metro('88', 'Vosges', '44'),
  metro('89', 'Yonne', '27'),
  metro('90', 'Territoire de Belfort', '27'),
  metro('91', 'Essonne', '11'),
  metro('92', 'Hauts-de-Seine', '11'),
  metro('93', 'Seine-Saint-Denis', '11'),
  metro('94', 'Val-de-Marne', '11'),
  metro('95', "Val-d'Oise", '11'),
  outreMer('971', 'Guadeloupe', '01'),
  outreMer('972', 'Martinique', '02'),
  outreMer('973', 'Guyane', '03'),
  outreMer('974', 'La Réunion', '04'),
  outreMer('975', 'Saint-Pierre-et-Miquelon', 'COM'),
  outreMer('976', 'Mayotte', '06'),
  outreMer('977', 'Saint-Barthélemy', 'COM'),
  outreMer('978', 'Saint-Martin', 'COM'),
];

const DEPARTEMENT_CODES: ReadonlySet<string> = new Set(DEPARTEMENTS.map((d) => d.code));

/** True exactly for the accepted department codes (01–19, 2A, 2B, 21–95, 971–978). */
export function isValidDepartementCode(code: string): boolean {
  return DEPARTEMENT_CODES.has(code);
}

// ---------------------------------------------------------------------------
// NAF rév. 2, section F (construction): the 38 sub-classes of divisions 41–43.
// ---------------------------------------------------------------------------

function naf(code: string, libelle: string): NafEntry {
  return { code, libelle, division: code.slice(0, 2), groupe: code.slice(0, 4) };
}

export const NAF_SECTION_F: readonly NafEntry[] = [
  naf('41.10A', 'Promotion immobilière de logements'),
  naf('41.10B', 'Promotion immobilière de bureaux'),
  naf('41.10C', "Promotion immobilière d'autres bâtiments"),
  naf('41.10D', 'Supports juridiques de programmes'),
  naf('41.20A', 'Construction de maisons individuelles'),
  naf('41.20B', "Construction d'autres bâtiments"),
  naf('42.11Z', 'Construction de routes et autoroutes'),
  naf('42.12Z', 'Construction de voies ferrées de surface et souterraines'),
  naf('42.13A', "Construction d'ouvrages d'art"),
  naf('42.13B', 'Construction et entretien de tunnels'),
  naf('42.21Z', 'Construction de réseaux pour fluides'),
  naf('42.22Z', 'Construction de réseaux électriques et de télécommunications'),
  naf('42.91Z', "Construction d'ouvrages maritimes et fluviaux"),
  naf('42.99Z', "Construction d'autres ouvrages de génie civil n.c.a."),
  naf('43.11Z', 'Travaux de démolition'),
  naf('43.12A', 'Travaux de terrassement courants et travaux préparatoires'),
  naf('43.12B', 'Travaux de terrassement spécialisés ou de grande masse'),
  naf('43.13Z', 'Forages et sondages'),
  naf('43.21A', "Travaux d'installation électrique dans tous locaux"),
  naf('43.21B', "Travaux d'installation électrique sur la voie publique"),
  naf('43.22A', "Travaux d'installation d'eau et de gaz en tous locaux"),
  naf('43.22B', "Travaux d'installation d'équipements thermiques et de climatisation"),
  naf('43.29A', "Travaux d'isolation"),
  naf('43.29B', "Autres travaux d'installation n.c.a."),
  naf('43.31Z', 'Travaux de plâtrerie'),
  naf('43.32A', 'Travaux de menuiserie bois et PVC'),
  naf('43.32B', 'Travaux de menuiserie métallique et serrurerie'),
  naf('43.32C', 'Agencement de lieux de vente'),
  naf('43.33Z', 'Travaux de revêtement des sols et des murs'),
  naf('43.34Z', 'Travaux de peinture et vitrerie'),
  naf('43.39Z', 'Autres travaux de finition'),
  naf('43.91A', 'Travaux de charpente'),
  naf('43.91B', 'Travaux de couverture par éléments'),
  naf('43.99A', "Travaux d'étanchéification"),
  naf('43.99B', 'Travaux de montage de structures métalliques'),
  naf('43.99C', 'Travaux de maçonnerie générale et gros œuvre de bâtiment'),
  naf('43.99D', 'Autres travaux spécialisés de construction'),
  naf('43.99E', 'Location avec opérateur de matériel de construction'),
];

// ---------------------------------------------------------------------------
// CPV 2008 (Regulation (EC) No 213/2008), division 45 — the division, its 5 groups,
// its 20 classes and the categories most used for building trades.
// ---------------------------------------------------------------------------

const CPV_WEIGHTS = [3, 7, 1, 3, 7, 1, 3, 7] as const;

/**
 * Check digit (9th digit) of a CPV code: sum(d_i * w_i) mod 10 over the 8 digits,
 * weights 3,7,1,3,7,1,3,7. Throws a RangeError unless given exactly 8 digits.
 */
export function cpvCheckDigit(eightDigits: string): number {
  if (!/^\d{8}$/.test(eightDigits)) {
    throw new RangeError(`CPV code must be 8 digits, got "${eightDigits}"`);
  }
  let sum = 0;
  for (let i = 0; i < 8; i++) {
    sum += Number(eightDigits.charAt(i)) * CPV_WEIGHTS[i]!;
  }
  return sum % 10;
}

/** True when the code is "dddddddd-d" and its 9th digit is the right check digit. */
/** `45261000-4` from `45261000`, `45261000-4` or `45261000-4 …`. */
export function normaliseCpv(value: string): string | null {
  const m = /(\d{8})(?:-(\d))?/.exec(value);
  if (!m) return null;
  return `${m[1]}-${cpvCheckDigit(m[1] as string)}`;
}

export function isValidCpv(code: string): boolean {
  const m = /^(\d{8})-(\d)$/.exec(code);
  if (!m) return false;
  return cpvCheckDigit(m[1]!) === Number(m[2]);
}

function withCheckDigit(eightDigits: string): string {
  return `${eightDigits}-${cpvCheckDigit(eightDigits)}`;
}

/** Builds an entry from the 8 digits: check digit, level and parent follow from the code. */
function cpv(eightDigits: string, libelle: string): CpvEntry {
  // Level = index of the last significant digit among indexes 2 to 4 (group, class,
  // category); index 1 (the division's second digit) means level 1.
  let niveau = 1;
  for (let i = 2; i <= 4; i++) {
    if (eightDigits.charAt(i) !== '0') niveau = i;
  }
  const parent =
    niveau === 1 ? null : withCheckDigit(`${eightDigits.slice(0, niveau)}0${eightDigits.slice(niveau + 1)}`);
  return { code: withCheckDigit(eightDigits), libelle, niveau, parent };
}

export const CPV_DIVISION_45: readonly CpvEntry[] = [
  cpv('45000000', 'Travaux de construction'),

  cpv('45100000', 'Travaux de préparation de chantier'),
  cpv('45110000', 'Travaux de démolition de bâtiments et travaux de terrassement'),
  cpv('45111000', 'Travaux de démolition, travaux de préparation et de dégagement de chantier'),
  cpv('45112000', "Travaux d'excavation et de terrassement"),
  cpv('45113000', 'Travaux de chantier'),
  cpv('45120000', "Forages et sondages d'essai"),

  cpv('45200000', 'Travaux de construction complète ou partielle et travaux de génie civil'),
  cpv('45210000', 'Travaux de construction de bâtiments'),
  cpv('45211000', "Travaux de construction d'immeubles collectifs et de maisons individuelles"),
  cpv(
    '45212000',
    "Travaux de construction de bâtiments destinés aux loisirs, aux sports, à la culture, à l'hébergement et à la restauration",
  ),
  cpv(
    '45213000',
    "Travaux de construction de bâtiments commerciaux, d'entrepôts et de bâtiments industriels, de bâtiments relatifs aux transports",
  ),
  cpv('45214000', "Travaux de construction de bâtiments relatifs à l'enseignement et à la recherche"),
  cpv(
    '45215000',
    'Travaux de construction de bâtiments relatifs à la santé et aux services sociaux, de crématoriums et de toilettes publiques',
  ),
  cpv(
    '45216000',
    "Travaux de construction de bâtiments relatifs aux services de l'ordre public ou aux services d'urgence et de bâtiments militaires",
  ),
  cpv('45217000', 'Travaux de construction de bâtiments gonflables'),
  cpv('45220000', "Ouvrages d'art et de génie civil"),
  cpv('45221000', 'Travaux de construction de ponts et de tunnels, de puits et de passages souterrains'),
  cpv(
    '45222000',
    "Travaux de construction d'ouvrages de génie civil, excepté ponts, tunnels, puits et passages souterrains",
  ),
  cpv('45223000', 'Travaux de construction de structures'),
  cpv(
    '45230000',
    "Travaux de construction de pipelines, de lignes de communication et de lignes électriques, d'autoroutes, de routes, d'aérodromes et de voies ferrées; travaux de nivellement",
  ),
  cpv('45231000', 'Travaux de construction de pipelines, de lignes de communication et de lignes électriques'),
  cpv('45232000', 'Travaux annexes pour pipelines et câbles'),
  cpv('45233000', "Travaux de construction, de fondation et de surface d'autoroutes, de routes"),
  cpv('45234000', 'Travaux de construction de voies ferrées et de systèmes de transport par câble'),
  cpv('45236000', 'Travaux de surfaçage'),
  cpv('45237000', 'Travaux de construction de scènes'),
  cpv('45240000', "Travaux de construction d'ouvrages hydrauliques"),
  cpv('45241000', 'Travaux de construction portuaire'),
  cpv('45243000', 'Ouvrages de défense côtière'),
  cpv('45246000', "Travaux de régularisation de cours d'eau et de maîtrise des crues"),
  cpv('45247000', "Travaux de construction de barrages, de canaux, de canaux d'irrigation et d'aqueducs"),
  cpv('45248000', "Travaux de construction d'ouvrages hydromécaniques"),
  cpv(
    '45250000',
    "Travaux de construction de centrales, d'installations minières et de fabrication et de bâtiments pour l'industrie du pétrole et du gaz",
  ),
  cpv('45251000', "Travaux de construction de centrales et d'installations de chauffage"),
  cpv(
    '45252000',
    "Travaux de construction d'installations de traitement des eaux usées, d'installations de purification et d'usines d'incinération des déchets",
  ),
  cpv('45259000', "Réparation et entretien d'installations"),
  cpv('45260000', 'Travaux de couverture et autres travaux spécialisés de construction'),
  cpv('45261000', 'Travaux de charpente et de couverture et travaux connexes'),
  cpv('45262000', 'Travaux de métier spécialisés autres que travaux de toiture'),

  cpv('45300000', "Travaux d'équipement du bâtiment"),
  cpv('45310000', "Travaux d'équipement électrique"),
  cpv('45311000', "Travaux de câblage et d'installations électriques"),
  cpv('45312000', "Travaux d'installation de systèmes d'alarme et d'antennes"),
  cpv('45313000', "Travaux d'installation d'ascenseurs et d'escaliers mécaniques"),
  cpv('45314000', 'Installation de matériel de télécommunications'),
  cpv(
    '45315000',
    "Travaux d'installation de chauffage électrique et d'autres équipements électriques pour bâtiments",
  ),
  cpv('45316000', "Travaux d'installation de systèmes d'éclairage et de signalisation"),
  cpv('45317000', "Autres travaux d'installation électrique"),
  cpv('45320000', "Travaux d'isolation"),
  cpv('45321000', "Travaux d'isolation thermique"),
  cpv('45323000', "Travaux d'isolation acoustique"),
  cpv('45324000', 'Travaux de pose de plaques de plâtre'),
  cpv('45330000', 'Travaux de plomberie'),
  cpv('45331000', "Travaux d'installation de matériel de chauffage, de ventilation et de climatisation"),
  cpv('45332000', "Travaux de plomberie et de pose de conduits d'évacuation"),
  cpv('45333000', "Travaux d'installation de gaz"),
  cpv('45340000', "Travaux d'installation de clôtures, de garde-corps et de dispositifs de sécurité"),
  cpv('45343000', "Travaux d'installation d'équipements de prévention des incendies"),
  cpv('45350000', 'Installations mécaniques'),

  cpv('45400000', 'Travaux de parachèvement de bâtiment'),
  cpv('45410000', 'Travaux de plâtrerie'),
  cpv('45420000', 'Travaux de menuiserie et de charpenterie'),
  cpv('45421000', 'Travaux de menuiserie'),
  cpv('45422000', 'Travaux de charpenterie'),
  cpv('45430000', 'Travaux de revêtement de sols et de murs'),
  cpv('45431000', 'Carrelage'),
  cpv('45432000', 'Travaux de pose de revêtements de sols et de murs et de tapisserie'),
  cpv('45440000', 'Travaux de peinture et de vitrerie'),
  cpv('45441000', 'Travaux de vitrerie'),
  cpv('45442000', "Travaux d'application de revêtements de protection"),
  cpv('45443000', 'Travaux de façade'),
  cpv('45450000', 'Autres travaux de parachèvement de bâtiment'),
  cpv('45451000', 'Travaux de décoration'),
  cpv('45452000', "Travaux de nettoyage de l'extérieur des bâtiments"),
  cpv('45453000', 'Travaux de remise en état et de remise à neuf'),
  cpv('45454000', 'Travaux de restructuration'),

  cpv('45500000', 'Location de machines et de matériel de construction et de génie civil avec opérateur'),
  cpv('45510000', 'Location de grues avec opérateur'),
  cpv('45520000', 'Location de matériel de terrassement avec opérateur'),
];

// ---------------------------------------------------------------------------
// Alert sources, in display order.
// ---------------------------------------------------------------------------

export const ALERT_SOURCES: readonly AlertSourceEntry[] = [
  {
    code: 'marche',
    libelle: 'Avis de marché',
    surveille:
      "Nouveaux avis de marché publiés, avec un rappel à l'approche de la date limite de remise des offres (J-7)",
    departements_requis: false,
    terme_applique: true,
  },
  {
    code: 'dce',
    libelle: 'Dossiers de consultation (DCE)',
    surveille: 'Nouveaux dossiers de consultation des entreprises citant les termes suivis',
    departements_requis: false,
    terme_applique: true,
  },
  {
    code: 'attribution',
    libelle: 'Attributions',
    surveille:
      'Marchés attribués (données ouvertes des marchés attribués) citant les termes suivis, dans les départements suivis',
    departements_requis: true,
    terme_applique: true,
  },
  {
    code: 'permis',
    libelle: 'Permis de construire',
    surveille: 'Permis de construire autorisés au cours des 45 derniers jours (publiés par fichiers de diffusion en masse)',
    departements_requis: false,
    terme_applique: true,
  },
  {
    code: 'reseaux_sociaux',
    libelle: 'Réseaux sociaux',
    surveille: 'Nouvelles publications sur les réseaux sociaux citant les termes suivis',
    departements_requis: false,
    terme_applique: true,
  },
  {
    code: 'mairie',
    libelle: 'Conseils municipaux',
    surveille: 'Nouveaux comptes rendus de conseils municipaux citant les termes suivis',
    departements_requis: false,
    terme_applique: true,
  },
  {
    code: 'bodacc',
    libelle: 'Annonces légales (BODACC)',
    surveille: 'Nouvelles annonces légales citant les termes suivis',
    departements_requis: false,
    terme_applique: true,
  },
  {
    code: 'entreprise',
    libelle: 'Entreprises',
    surveille: "Nouvelles entreprises de l'annuaire citant les termes suivis",
    departements_requis: false,
    terme_applique: true,
  },
  {
    code: 'contact',
    libelle: 'Contacts',
    surveille: "Nouveaux contacts de l'annuaire citant les termes suivis",
    departements_requis: false,
    terme_applique: true,
  },
  {
    code: 'dvf',
    libelle: 'Ventes immobilières (DVF)',
    surveille: "Ventes immobilières récentes dans les départements suivis (le terme n'est pas appliqué)",
    departements_requis: true,
    terme_applique: false,
  },
];

/** The departments asked for, and those of the region asked for, once each. */
export function departementsOf(departements: readonly string[] | undefined, region: string | undefined): string[] {
  const ofRegion = region ? (REGIONS.find((r) => r.code === region)?.departements ?? []) : [];
  return [...new Set([...(departements ?? []), ...ofRegion])];
}
