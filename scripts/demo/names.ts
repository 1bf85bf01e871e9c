// Parts of realistic French names: family and first names (with regional flavour), trade
// words per NAF code, regional "pays" and adjectives, streets, public buildings.
import type { Rng } from './prng.js';

const COMMON_FAMILY = [
  'Martin', 'Bernard', 'Dubois', 'Thomas', 'Robert', 'Richard', 'Petit', 'Durand', 'Leroy', 'Moreau', 'Simon',
  'Laurent', 'Lefebvre', 'Michel', 'Garcia', 'David', 'Bertrand', 'Roux', 'Vincent', 'Fournier', 'Morel', 'Girard',
  'André', 'Lefèvre', 'Mercier', 'Dupont', 'Lambert', 'Bonnet', 'François', 'Martinez', 'Legrand', 'Garnier', 'Faure',
  'Rousseau', 'Blanc', 'Guérin', 'Muller', 'Henry', 'Roussel', 'Nicolas', 'Perrin', 'Morin', 'Mathieu', 'Clément',
  'Gauthier', 'Dumont', 'Lopez', 'Fontaine', 'Chevalier', 'Robin', 'Masson', 'Sanchez', 'Gérard', 'Nguyen', 'Boyer',
  'Denis', 'Lemaire', 'Duval', 'Joly', 'Gautier', 'Roger', 'Roche', 'Roy', 'Noël', 'Meyer', 'Lucas', 'Meunier',
  'Perez', 'Marchand', 'Dufour', 'Blanchard', 'Barbier', 'Brun', 'Dumas', 'Brunet', 'Schmitt', 'Leroux', 'Colin',
  'Fernandez', 'Renard', 'Arnaud', 'Rolland', 'Caron', 'Aubert', 'Giraud', 'Leclerc', 'Vidal', 'Bourgeois', 'Renaud',
  'Lemoine', 'Picard', 'Gaillard', 'Philippe', 'Lacroix', 'Fabre', 'Dupuis', 'Olivier', 'Hubert', 'Guillot', 'Rivière',
  'Moulin', 'Berger', 'Lecomte', 'Ménard', 'Fleury', 'Deschamps', 'Carpentier', 'Benoît', 'Maillard', 'Marchal',
  'Aubry', 'Vasseur', 'Renault', 'Jacquet', 'Collet', 'Prévost', 'Poirier', 'Charpentier', 'Royer', 'Huet', 'Baron',
  'Dupuy', 'Pons', 'Carré', 'Breton', 'Rémy', 'Schneider', 'Perrot', 'Guyot', 'Barré', 'Marty', 'Cousin', 'Da Silva',
  'Ferreira', 'Dos Santos', 'Pereira', 'Rodrigues', 'Gonçalves', 'Fernandes', 'Lopes', 'Teixeira', 'Oliveira',
  'Martins', 'Yilmaz', 'Kaya', 'Benali', 'Haddad',
];

const REGIONAL_FAMILY: Readonly<Record<string, readonly string[]>> = {
  '53': [
    'Le Goff', 'Le Gall', 'Morvan', 'Le Bihan', 'Kerouédan', "Guivarc'h", 'Le Roux', 'Tanguy', 'Quéré', 'Le Floch',
    'Jaouen', 'Le Corre', 'Cadiou', 'Riou', 'Le Bras', 'Caradec', 'Prigent', 'Le Meur', 'Hamon', 'Stéphan', 'Bihannic',
    'Le Berre', 'Le Gac', 'Le Moal', 'Kerhervé', 'Le Guen', 'Quémener', 'Pennec', 'Le Dréau', 'Salaün', 'Abgrall',
    'Cloarec', 'Guéguen', 'Le Hir', 'Le Borgne', 'Madec', 'Le Lay', 'Kervella', 'Le Coz', 'Gourmelen', 'Le Page',
    'Lagadec', 'Le Saux', 'Bescond', 'Le Cam', 'Le Calvez', 'Thépaut', 'Le Rest', 'Guillou', 'Le Scour',
  ],
  '52': ['Guérin', 'Baudry', 'Bouchet', 'Chauvet', 'Rabiller', 'Gaborit', 'Rousseau', 'Tessier', 'Merlet', 'Brochard', 'Sorin', 'Pasquier'],
  '28': ['Lebrun', 'Lecoq', 'Hébert', 'Lemonnier', 'Leroux', 'Lefrançois', 'Marie', 'Duval', 'Lecanu', 'Jouenne', 'Laisné', 'Quesnel'],
  '44': ['Muller', 'Schmitt', 'Meyer', 'Weber', 'Klein', 'Wagner', 'Fischer', 'Hoffmann', 'Kieffer', 'Zimmermann', 'Koenig', 'Schaeffer'],
  '94': ['Santoni', 'Casanova', 'Leca', 'Mattei', 'Luciani', 'Albertini', 'Ferrandi', 'Pietri', 'Rossi', 'Colonna', 'Paoli', 'Marchetti'],
  '75': ['Etcheverry', 'Irigoyen', 'Elissalde', 'Lartigue', 'Dufau', 'Lafargue', 'Laborde', 'Darrigrand', 'Castaing', 'Larrieu'],
  '76': ['Bonnafous', 'Vidal', 'Fabre', 'Cazals', 'Bousquet', 'Maury', 'Calmettes', 'Salvan', 'Escande', 'Puig', 'Vilaseca'],
  '93': ['Giraud', 'Ricard', 'Blanc', 'Reynaud', 'Martini', 'Fabre', 'Orsini', 'Gilli', 'Maurel', 'Arnaud'],
  '84': ['Chabert', 'Rey', 'Bonnard', 'Perret', 'Jacquier', 'Favre', 'Rochas', 'Buisson', 'Mollard', 'Chapuis'],
  '01': ['Jean-Louis', 'Marie-Sainte', 'Saint-Cyr', 'Bellance', 'Caliste', 'Jean-Baptiste', 'Nelson', 'Lubin', 'Borel', 'Cornélie'],
  '02': ['Louis-Joseph', 'Marie-Rose', 'Jean-Marie', 'Alexis', 'Laurencin', 'Rosine', 'Édouard', 'Zobda', 'Monrose'],
  '03': ['Abdoul', 'Horth', 'Ho-A-Chuck', 'Lony', 'Sabayo', 'Jean-Élie', 'Patient', 'Gaillou', 'Emmanuel'],
  '04': ['Payet', 'Hoarau', 'Grondin', 'Técher', 'Lebon', 'Boyer', 'Fontaine', 'Rivière', 'Maillot', 'Nativel', 'Dijoux', 'Turpin'],
};

const MALE_FIRST = [
  'Jean', 'Pierre', 'Michel', 'Philippe', 'Alain', 'Patrick', 'Nicolas', 'Christophe', 'Stéphane', 'Laurent', 'David',
  'Sébastien', 'Julien', 'Thomas', 'Yann', 'Erwan', 'Gwenaël', 'Loïc', 'Ronan', 'Kévin', 'Anthony', 'Mickaël', 'Franck',
  'Olivier', 'Éric', 'Pascal', 'Thierry', 'Frédéric', 'Cédric', 'Maxime', 'Romain', 'Hugo', 'Lucas', 'Mathieu', 'Benoît',
  'Jérôme', 'Vincent', 'Antoine', 'João', 'Manuel', 'Mehmet', 'Karim', 'Bruno', 'Didier', 'Gilles', 'Hervé', 'Jacques',
];
const FEMALE_FIRST = [
  'Marie', 'Nathalie', 'Isabelle', 'Sandrine', 'Sophie', 'Céline', 'Aurélie', 'Émilie', 'Julie', 'Laure', 'Camille',
  'Anne', 'Nolwenn', 'Gwenola', 'Audrey', 'Claire', 'Élodie', 'Virginie', 'Stéphanie', 'Sarah',
];

export function familyName(rng: Rng, region: string): string {
  const regional = REGIONAL_FAMILY[region];
  if (regional && rng.chance(0.55)) return rng.pick(regional);
  return rng.pick(COMMON_FAMILY);
}

export function firstName(rng: Rng, sexe: 'M' | 'F'): string {
  return rng.pick(sexe === 'M' ? MALE_FIRST : FEMALE_FIRST);
}

/** A trade word of a company name, with its grammatical gender and number (for adjectives). */
export interface TradeWord {
  word: string;
  genre: 'm' | 'f';
  pluriel: boolean;
}

const w = (word: string, genre: 'm' | 'f', pluriel = false): TradeWord => ({ word, genre, pluriel });

const TRADES: Readonly<Record<string, readonly TradeWord[]>> = {
  '41.10A': [w('Promotion', 'f'), w('Immobilier', 'm'), w('Habitat', 'm')],
  '41.10B': [w('Promotion', 'f'), w('Immobilier', 'm')],
  '41.10C': [w('Promotion', 'f'), w('Immobilier', 'm')],
  '41.10D': [w('Patrimoine', 'm'), w('Investissements', 'm', true)],
  '41.20A': [w('Construction', 'f'), w('Maisons', 'f', true), w('Habitat', 'm'), w('Constructions', 'f', true)],
  '41.20B': [w('Bâtiment', 'm'), w('Construction', 'f'), w('BTP', 'm'), w('Constructions', 'f', true)],
  '42.11Z': [w('Travaux Publics', 'm', true), w('TP', 'm', true), w('Enrobés', 'm', true), w('Routes', 'f', true)],
  '42.12Z': [w('Voies Ferrées', 'f', true), w('Ferroviaire', 'm')],
  '42.13A': [w("Ouvrages d'Art", 'm', true), w('Génie Civil', 'm')],
  '42.13B': [w('Travaux Souterrains', 'm', true)],
  '42.21Z': [w('Réseaux', 'm', true), w('Canalisations', 'f', true), w('Assainissement', 'm')],
  '42.22Z': [w('Réseaux', 'm', true), w('Électrification', 'f')],
  '42.91Z': [w('Travaux Maritimes', 'm', true), w('Génie Maritime', 'm')],
  '42.99Z': [w('Génie Civil', 'm'), w('Ouvrages', 'm', true)],
  '43.11Z': [w('Démolition', 'f'), w('Déconstruction', 'f')],
  '43.12A': [w('Terrassement', 'm'), w('Terrassements', 'm', true), w('TP', 'm', true)],
  '43.12B': [w('Terrassements', 'm', true), w('Travaux Publics', 'm', true)],
  '43.13Z': [w('Forages', 'm', true), w('Sondages', 'm', true)],
  '43.21A': [w('Électricité', 'f'), w('Électricité Générale', 'f'), w('Élec', 'f')],
  '43.21B': [w('Éclairage Public', 'm'), w('Réseaux Électriques', 'm', true)],
  '43.22A': [w('Plomberie', 'f'), w('Plomberie Sanitaire', 'f'), w('Plomberie Chauffage', 'f')],
  '43.22B': [w('Chauffage', 'm'), w('Thermique', 'f'), w('Climatisation', 'f'), w('Énergies', 'f', true)],
  '43.29A': [w('Isolation', 'f'), w('Isolation Thermique', 'f')],
  '43.29B': [w('Installations', 'f', true), w('Équipements', 'm', true)],
  '43.31Z': [w('Plâtrerie', 'f'), w('Plâtrerie Isolation', 'f'), w('Cloisons', 'f', true)],
  '43.32A': [w('Menuiserie', 'f'), w('Menuiseries', 'f', true), w('Menuiserie Bois et PVC', 'f')],
  '43.32B': [w('Métallerie', 'f'), w('Serrurerie', 'f'), w('Serrurerie Métallerie', 'f')],
  '43.32C': [w('Agencement', 'm'), w('Agencements', 'm', true)],
  '43.33Z': [w('Carrelage', 'm'), w('Sols', 'm', true), w('Revêtements', 'm', true)],
  '43.34Z': [w('Peinture', 'f'), w('Peinture Décoration', 'f'), w('Vitrerie', 'f')],
  '43.39Z': [w('Finitions', 'f', true), w('Rénovation', 'f')],
  '43.91A': [w('Charpente', 'f'), w('Charpentes', 'f', true), w('Charpente Bois', 'f')],
  '43.91B': [w('Couverture', 'f'), w('Couverture Zinguerie', 'f'), w('Toitures', 'f', true)],
  '43.99A': [w('Étanchéité', 'f')],
  '43.99B': [w('Structures Métalliques', 'f', true), w('Charpente Métallique', 'f')],
  '43.99C': [w('Maçonnerie', 'f'), w('Maçonnerie Générale', 'f'), w('Bâtiment', 'm'), w('Gros Œuvre', 'm')],
  '43.99D': [w('Ravalement', 'm'), w('Façades', 'f', true), w('Travaux Spéciaux', 'm', true)],
  '43.99E': [w('Location', 'f'), w('Levage', 'm')],
};

export function tradeWord(rng: Rng, naf: string): TradeWord {
  return rng.pick(TRADES[naf] ?? [w('Bâtiment', 'm')]);
}

/** Regional adjectives [masculine, feminine] and "pays" with their article, by INSEE region. */
const REGION_FLAVOUR: Readonly<Record<string, { adj: readonly (readonly [string, string])[]; pays: readonly string[] }>> = {
  '53': {
    adj: [['Armoricain', 'Armoricaine'], ['Breton', 'Bretonne'], ["de l'Ouest", "de l'Ouest"]],
    pays: ['du Léon', 'du Trégor', 'de Cornouaille', 'du Pays Bigouden', 'des Abers', "de l'Odet", 'du Goëlo', "de l'Iroise", 'du Porhoët', 'de Brocéliande', "des Monts d'Arrée", 'du Poher'],
  },
  '52': { adj: [['Ligérien', 'Ligérienne'], ['Vendéen', 'Vendéenne'], ['Angevin', 'Angevine']], pays: ['du Bocage', 'des Mauges', 'du Marais', "de l'Estuaire", 'du Maine'] },
  '28': { adj: [['Normand', 'Normande'], ['Cotentinais', 'Cotentinaise']], pays: ['du Cotentin', "du Pays d'Auge", 'du Bessin', 'du Pays de Caux', 'du Bocage'] },
  '32': { adj: [['Picard', 'Picarde'], ['du Nord', 'du Nord'], ['Flamand', 'Flamande']], pays: ['des Flandres', 'du Hainaut', "de l'Artois", 'du Boulonnais', 'du Vermandois'] },
  '11': { adj: [['Francilien', 'Francilienne'], ['Parisien', 'Parisienne']], pays: ["de l'Île-de-France", 'du Val-de-Marne', 'du Vexin', 'de la Brie', 'du Hurepoix'] },
  '24': { adj: [['Tourangeau', 'Tourangelle'], ['Berrichon', 'Berrichonne'], ['Solognot', 'Solognote']], pays: ['de Touraine', 'de Sologne', 'du Berry', 'de Beauce', 'du Val de Loire'] },
  '44': { adj: [['Alsacien', 'Alsacienne'], ['Lorrain', 'Lorraine'], ['Champenois', 'Champenoise'], ["de l'Est", "de l'Est"]], pays: ['du Ried', 'des Vosges', 'de Champagne', 'du Sundgau', 'de la Moselle'] },
  '27': { adj: [['Bourguignon', 'Bourguignonne'], ['Comtois', 'Comtoise']], pays: ['du Morvan', 'du Jura', 'de la Bresse', 'du Haut-Doubs', 'du Mâconnais'] },
  '84': { adj: [['Savoyard', 'Savoyarde'], ['Dauphinois', 'Dauphinoise'], ['Auvergnat', 'Auvergnate'], ['Lyonnais', 'Lyonnaise']], pays: ['des Alpes', 'du Dauphiné', 'du Forez', 'des Volcans', 'du Beaujolais', 'du Chablais'] },
  '75': { adj: [['Aquitain', 'Aquitaine'], ['Landais', 'Landaise'], ['Basque', 'Basque'], ['Charentais', 'Charentaise']], pays: ['du Médoc', 'du Périgord', 'du Béarn', 'des Landes', 'de Saintonge', 'du Limousin'] },
  '76': { adj: [['Occitan', 'Occitane'], ['Catalan', 'Catalane'], ['Toulousain', 'Toulousaine'], ['du Midi', 'du Midi']], pays: ['du Lauragais', 'du Quercy', 'de Camargue', 'des Cévennes', 'du Roussillon', 'du Rouergue'] },
  '93': { adj: [['Provençal', 'Provençale'], ['Azuréen', 'Azuréenne'], ['Méditerranéen', 'Méditerranéenne']], pays: ['de Provence', 'du Luberon', 'du Var', 'des Alpilles', 'de la Riviera', 'du Verdon'] },
  '94': { adj: [['Corse', 'Corse'], ['Insulaire', 'Insulaire']], pays: ['de Balagne', 'du Cap Corse', 'de la Castagniccia', 'du Sartenais', 'du Nebbiu'] },
  '01': { adj: [['Guadeloupéen', 'Guadeloupéenne'], ['Antillais', 'Antillaise'], ['Caraïbe', 'Caraïbe']], pays: ['de Grande-Terre', 'de Basse-Terre', 'des Îles'] },
  '02': { adj: [['Martiniquais', 'Martiniquaise'], ['Antillais', 'Antillaise'], ['Caraïbe', 'Caraïbe']], pays: ['du Centre', 'du Nord Caraïbe', 'du Sud'] },
  '03': { adj: [['Guyanais', 'Guyanaise'], ['Amazonien', 'Amazonienne']], pays: ["de l'Ouest Guyanais", 'du Littoral', 'des Savanes'] },
  '04': { adj: [['Réunionnais', 'Réunionnaise'], ["de l'Océan Indien", "de l'Océan Indien"]], pays: ["de l'Est", 'du Sud Sauvage', 'des Hauts', "de l'Ouest"] },
};

const GENERIC_FLAVOUR = { adj: [['Régional', 'Régionale']] as const, pays: ['du Littoral', 'des Vallées', 'du Centre'] };

function flavour(region: string): { adj: readonly (readonly [string, string])[]; pays: readonly string[] } {
  return REGION_FLAVOUR[region] ?? GENERIC_FLAVOUR;
}

function agree(adj: readonly [string, string], t: TradeWord): string {
  const base = t.genre === 'm' ? adj[0] : adj[1];
  if (!t.pluriel || base.includes(' ') || /[sx]$/.test(base)) return base;
  return base + 's';
}

export interface CompanyName {
  /** Display form (mixed case, accents). */
  denomination: string;
  sigle: string;
  /** The family name the denomination was built from (also used for shop signs). */
  family: string;
}

function initials(text: string): string {
  return text
    .split(/[\s'-]+/)
    .filter((p) => p.length > 2 && /^[A-ZÀ-Ý]/.test(p))
    .map((p) => p.charAt(0))
    .join('')
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '');
}

const LEGAL_PREFIX: Readonly<Record<string, string>> = { '5499': 'SARL', '5498': 'EURL', '5710': 'SAS', '5720': 'SASU', '5599': 'SA' };

/** A company name for a legal person, in one of the shapes French building firms use. */
export function companyName(rng: Rng, naf: string, region: string, categorie: string, communeNom: string): CompanyName {
  const t = tradeWord(rng, naf);
  const fam = familyName(rng, region);
  const f = flavour(region);
  const roll = rng.next();
  let denomination: string;
  let sigle = '';
  if (roll < 0.16) denomination = `${t.word} ${fam}`;
  else if (roll < 0.3) denomination = `${fam} ${t.word}`;
  else if (roll < 0.4) denomination = `${LEGAL_PREFIX[categorie] ?? 'Entreprise'} ${fam} ${t.word}`;
  else if (roll < 0.5) denomination = `${t.word} ${rng.pick(f.pays)}`;
  else if (roll < 0.58) denomination = `${t.word} ${agree(rng.pick(f.adj), t)}`;
  else if (roll < 0.66) denomination = `${rng.pick(['Bâtiment', 'Entreprise', 'Ets', 'Menuiserie', 'Maçonnerie'])} ${fam} et Fils`;
  else if (roll < 0.71) denomination = `${fam} Frères`;
  else if (roll < 0.76) {
    const other = familyName(rng, region);
    denomination = other === fam ? `${fam} et Associés` : `${fam}, ${other} et Associés`;
  } else if (roll < 0.82) {
    const oneWord = f.adj.filter(([m]) => !m.includes(' '));
    const adj = rng.pick(oneWord.length > 0 ? oneWord : GENERIC_FLAVOUR.adj);
    const activity = rng.pick(['Travaux Publics', 'Bâtiment', 'Couverture', 'Rénovation', 'Construction', 'Charpente']);
    denomination = `Société ${adj[1]} de ${activity}`;
    sigle = initials(`Société ${adj[1]} ${activity}`);
  } else if (roll < 0.87) denomination = `${communeNom.replace(/ \d+(?:er|e) Arrondissement$/, '')} ${t.word}`;
  else if (roll < 0.91) denomination = `Atelier ${fam}`;
  else if (roll < 0.94) denomination = `Les Artisans ${rng.pick(f.pays)}`;
  else if (roll < 0.97) denomination = `Entreprise ${fam}`;
  else denomination = `${t.word} ${fam} & Cie`;
  if (!sigle && rng.chance(0.05)) sigle = initials(denomination) || '';
  return { denomination, sigle: sigle.length >= 2 ? sigle : '', family: fam };
}

/** Shop sign of an individual's establishment ("Le Goff Couverture"), or occasionally with quotes. */
export function enseigne(rng: Rng, naf: string, nom: string): string {
  const t = tradeWord(rng, naf);
  const roll = rng.next();
  if (roll < 0.5) return `${nom} ${t.word}`;
  if (roll < 0.9) return `${t.word} ${nom}`;
  return `Atelier "${nom}"`;
}

const STREETS_COMMON = [
  'de la République', 'Jean Jaurès', 'du Général de Gaulle', 'Victor Hugo', 'de la Gare', 'des Artisans', "de l'Industrie",
  'du Stade', "de l'Église", 'Pasteur', 'Jules Ferry', 'du Port', 'des Écoles', 'de la Mairie', 'du Moulin', 'des Lilas',
  'Gambetta', 'Émile Zola', 'Anatole France', 'des Tilleuls', 'du Maréchal Leclerc', 'Saint-Exupéry', 'Jean Moulin',
  'de la Libération', 'du 8 Mai 1945', 'du 11 Novembre', 'des Frères Lumière', 'Pierre et Marie Curie', 'de la Paix',
  'du Château', 'de la Fontaine', 'des Peupliers', 'des Acacias', 'Aristide Briand', 'Paul Doumer', 'Carnot',
  'Georges Clemenceau', 'du Commerce', 'des Forges', 'de la Croix Rouge', 'des Vergers', 'du Vieux Bourg',
];
const STREETS_BRETAGNE = [
  'de Kerguelen', 'de Kermaria', "de Pen ar Créac'h", 'de Kervéguen', 'de Keradennec', 'de Kerjaouen', 'de Pont Ar Bled',
  'de Ty Nevez', 'du Menez', 'de Coat Ar Guéven', 'de Roudour', 'de Lannuguy',
];
const STREETS_SUD = ['des Vignes', 'des Mimosas', 'des Oliviers', 'des Cigales', 'de la Garrigue', 'des Platanes', 'du Mistral'];
const ZONES = ['des Fougerais', 'du Bois Joli', 'des Landes', 'de la Croix Blanche', "des Portes de l'Océan", 'du Vern', 'de Kergonan', 'des Noës', "du Parc d'Activités", 'des Glycines', 'de la Gare'];
const LIEUX_DITS_BRETAGNE = ['Kerveguen', 'Kermaria', 'Lesvern', 'Penhoat', 'Kerlaouen', 'Trémeur', 'Le Rest', 'Ty Glas'];
const LIEUX_DITS = ['Le Bourg', 'La Fosse', 'Les Essarts', 'La Métairie', 'Le Moulin Neuf', 'La Croix', 'Les Granges'];

export interface Address {
  complement: string;
  numero: string;
  indice: string;
  typeVoie: string;
  libelleVoie: string;
  distribution: string;
}

/** A plausible address (display case) in a commune of the given region. */
export function address(rng: Rng, region: string): Address {
  const complementRoll = rng.next();
  const complement =
    complementRoll < 0.06
      ? `Bâtiment ${rng.pick(['A', 'B', 'C'])}, ${rng.int(1, 3)}e étage`
      : complementRoll < 0.12
        ? `Zone artisanale ${rng.pick(ZONES)}`
        : complementRoll < 0.15
          ? `Parc d'activités ${rng.pick(ZONES)}`
          : '';
  const distribution = rng.chance(0.04) ? `${rng.pick(['BP', 'CS'])} ${rng.int(10, 90)}${rng.digits(3)}` : '';
  const roll = rng.next();
  if (roll < 0.06) {
    const ld = region === '53' && rng.chance(0.7) ? rng.pick(LIEUX_DITS_BRETAGNE) : rng.pick(LIEUX_DITS);
    return { complement, numero: '', indice: '', typeVoie: 'LD', libelleVoie: ld, distribution };
  }
  if (roll < 0.16) {
    return { complement: '', numero: rng.chance(0.6) ? String(rng.int(1, 40)) : '', indice: '', typeVoie: rng.pick(['ZA', 'ZI']), libelleVoie: rng.pick(ZONES), distribution };
  }
  const typeVoie = rng.pick(['RUE', 'RUE', 'RUE', 'RUE', 'RUE', 'RUE', 'AV', 'BD', 'CHE', 'ALL', 'IMP', 'PL', 'RTE', 'QUAI']);
  const pool = region === '53' && rng.chance(0.35) ? STREETS_BRETAGNE : (region === '93' || region === '76') && rng.chance(0.3) ? STREETS_SUD : STREETS_COMMON;
  const numero = String(rng.chance(0.7) ? rng.int(1, 60) : rng.int(61, 240));
  const indice = rng.chance(0.04) ? rng.pick(['B', 'B', 'T', 'Q']) : '';
  return { complement, numero, indice, typeVoie, libelleVoie: rng.pick(pool), distribution };
}

const TYPE_VOIE_LONG: Readonly<Record<string, string>> = {
  RUE: 'rue', AV: 'avenue', BD: 'boulevard', CHE: 'chemin', ALL: 'allée', IMP: 'impasse', PL: 'place', RTE: 'route',
  QUAI: 'quai', ZA: 'zone artisanale', ZI: 'zone industrielle', LD: 'lieu-dit',
};

/** "12 bis rue de la Gare" — the address on one line, display case. */
export function addressLine(a: Address): string {
  const indice = a.indice ? ` ${{ B: 'bis', T: 'ter', Q: 'quater' }[a.indice] ?? a.indice}` : '';
  const voie = a.typeVoie === 'LD' ? a.libelleVoie : `${TYPE_VOIE_LONG[a.typeVoie] ?? a.typeVoie.toLowerCase()} ${a.libelleVoie}`;
  return [a.numero ? `${a.numero}${indice}` : '', voie].filter(Boolean).join(' ');
}

const SCHOOL_NAMES = [
  'Jules-Ferry', 'Jean-Jaurès', 'Jean-Moulin', 'Victor-Hugo', 'Paul-Bert', 'Louise-Michel', 'Jacques-Prévert', 'Marie-Curie',
  'Albert-Camus', 'Anatole-France', 'Jean-de-La-Fontaine', 'Simone-Veil', 'Pablo-Picasso', 'Antoine-de-Saint-Exupéry',
  'Marcel-Pagnol', 'Jules-Verne', 'Paul-Éluard', 'Émile-Zola', 'Georges-Brassens', 'Pierre-Loti',
];
const SAINTS = ['Martin', 'Pierre', 'Étienne', 'Michel', 'Nicolas', 'Jacques', 'Germain', 'Hilaire', 'Sauveur', 'Laurent', 'Georges', 'Vincent'];
const SAINTS_BRETAGNE = ['Corentin', 'Ronan', 'Tugdual', 'Pol', 'Guénolé', 'Herbot', 'Mathurin', 'Yves'];

export function schoolName(rng: Rng): string {
  return rng.pick(SCHOOL_NAMES);
}

export function saintName(rng: Rng, region: string): string {
  return region === '53' && rng.chance(0.6) ? rng.pick(SAINTS_BRETAGNE) : rng.pick(SAINTS);
}

/** A municipal building, as the noun phrase with its article: "la médiathèque", "l'école Jules-Ferry". */
export function communalBuilding(rng: Rng, region: string): string {
  const school = schoolName(rng);
  return rng.pick([
    `l'école élémentaire ${school}`,
    `l'école maternelle ${school}`,
    `le groupe scolaire ${school}`,
    `l'école ${school}`,
    'la médiathèque',
    'la médiathèque municipale',
    'la mairie',
    "l'hôtel de ville",
    'la salle polyvalente',
    'la salle des fêtes',
    'le complexe sportif',
    'le gymnase municipal',
    'la salle omnisports',
    'les vestiaires du stade municipal',
    'la piscine municipale',
    'le centre technique municipal',
    'la crèche municipale',
    'le multi-accueil',
    "l'espace jeunesse",
    'la maison des associations',
    'le restaurant scolaire',
    `l'église Saint-${saintName(rng, region)}`,
    "l'école de musique",
    'le centre culturel',
    'la maison de santé pluridisciplinaire',
    'les logements communaux',
    'la halle du marché',
  ]);
}

/** "de la médiathèque", "du gymnase", "des vestiaires", "de l'école". */
export function deBuilding(phrase: string): string {
  if (phrase.startsWith('le ')) return `du ${phrase.slice(3)}`;
  if (phrase.startsWith('les ')) return `des ${phrase.slice(4)}`;
  return `de ${phrase}`;
}

export function streetName(rng: Rng, region: string): string {
  const pool = region === '53' && rng.chance(0.3) ? STREETS_BRETAGNE : STREETS_COMMON;
  const libelle = rng.pick(pool);
  return `${rng.pick(['rue', 'rue', 'avenue', 'boulevard', 'route'])} ${libelle}`;
}

/** Lower-case ASCII slug for e-mail and web addresses: "le-goff-couverture". */
export function slug(text: string): string {
  return text
    .replace(/œ/gi, 'oe')
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/&/g, ' et ')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}
