// BODACC announcements (dataset `annonces-commerciales` of the DILA's Opendatasoft portal),
// written as an Explore API v2.1 answer ({"total_count": N, "results": […]}, total_count
// first as the API sends it) and as JSON lines, the same records. Every field as the portal
// publishes it: `registre` a list of the SIREN spaced and not (in either order), the detail
// fields JSON inside strings, natural persons with their civil name, address and trade name,
// judgments with their free text (which names the court's agents and a web address), and
// `url_complete`, the bodacc.fr page: all of which the importer must leave out.
// The companies are the demo companies (same SIRENs as the SIRENE files); a few of them go
// through a receivership (opening, then a plan or a conversion to liquidation, then the
// closing), the first of them on fixed dates so that the catalogue's recipes find it.
import type { Company, CompanyIndex, DemoContext } from './companies.js';
import { COMMUNES, departement, registerText, type Commune } from './communes.js';
import { rngFor, Weighted, type Rng } from './prng.js';
import { FileWriter, isoDay, parseIsoDay, yearOfDay } from './util.js';
import { NAF_SECTION_F, REGIONS } from '../../src/domains/reference/lists.js';

type Family = 'creation' | 'immatriculation' | 'collective' | 'conciliation' | 'retablissement_professionnel' | 'modification' | 'radiation' | 'dpc' | 'vente' | 'divers';

const FAMILY_LABELS: Readonly<Record<Family, string>> = {
  creation: 'Créations',
  immatriculation: 'Immatriculations',
  collective: 'Procédures collectives',
  conciliation: 'Procédures de conciliation',
  retablissement_professionnel: 'Procédures de rétablissement professionnel',
  modification: 'Modifications diverses',
  radiation: 'Radiations',
  dpc: 'Dépôts des comptes',
  vente: 'Ventes et cessions',
  divers: 'Annonces diverses',
};
const BULLETIN: Readonly<Record<Family, 'A' | 'B' | 'C'>> = {
  creation: 'A', immatriculation: 'A', collective: 'A', conciliation: 'A', retablissement_professionnel: 'A', vente: 'A', divers: 'A',
  modification: 'B', radiation: 'B', dpc: 'C',
};
const FAMILIES = new Weighted<Family>([
  ['dpc', 26], ['modification', 20], ['creation', 13], ['radiation', 11], ['collective', 12], ['vente', 7], ['immatriculation', 5],
  ['divers', 3], ['conciliation', 1.5], ['retablissement_professionnel', 1.5],
]);

/** Natures of judgments of the collective proceedings, with their family, as the BODACC words them. */
const COLLECTIVE = new Weighted<readonly [string, string, boolean]>([
  [["Jugement d'ouverture", "Jugement d'ouverture d'une procédure de redressement judiciaire", true], 24],
  [["Jugement d'ouverture", "Jugement d'ouverture de liquidation judiciaire", true], 34],
  [["Jugement d'ouverture", "Jugement d'ouverture d'une procédure de sauvegarde", true], 3],
  [['Jugement prononçant', 'Jugement de conversion en liquidation judiciaire', false], 8],
  [['Jugement prononçant', 'Jugement arrêtant le plan de redressement', false], 5],
  [['Jugement de clôture', "Jugement de clôture pour insuffisance d'actif", false], 18],
  [['Jugement de clôture', 'Jugement de clôture pour extinction du passif', false], 2],
  [['Avis de dépôt', "Dépôt de l'état des créances", false], 4],
  [['Extrait de jugement', 'Autre jugement et ordonnance', false], 2],
]);
const MANDATAIRES = ['SELARL Mandataires Associés', 'SCP Le Bras et Kerhervé', 'SELARL Athéna', 'SELAS MJ Synergie', 'SELARL Ajilink', 'SCP Bellec et Guillou', 'SELARL MJO'];
const FORMES = new Weighted<string>([
  ['Société à responsabilité limitée', 40], ['Société par actions simplifiée', 25], ['Société par actions simplifiée à associé unique', 18],
  ["Entreprise unipersonnelle à responsabilité limitée", 10], ['Société civile immobilière', 4], ['Société anonyme', 3],
]);
const MODIFICATIONS = [
  "Modification survenue sur l'administration.",
  'Modification survenue sur le capital.',
  "Modification survenue sur l'activité.",
  'Modification survenue sur la dénomination.',
  'Transfert du siège social.',
  "Modification survenue sur l'administration et le capital.",
];
const DEPOTS = new Weighted<string>([['Comptes annuels et rapports', 70], ['Comptes annuels et rapports (avec déclaration de confidentialité des comptes)', 25], ['Comptes consolidés et rapports', 5]]);

const NAF_LABELS = new Map(NAF_SECTION_F.map((n) => [n.code, n.libelle]));
const REGION_OF = new Map(REGIONS.flatMap((r) => r.departements.map((d) => [d, r] as const)));

/** The seat of each department's commercial court: its largest demo commune. */
const SEATS = new Map<string, Commune>();
for (const c of COMMUNES) {
  const seat = SEATS.get(c.departement);
  if (!seat || c.poids > seat.poids) SEATS.set(c.departement, c);
}

function tribunal(dep: string): string {
  const seat = SEATS.get(dep);
  const town = (seat?.ville?.nom ?? seat?.nom ?? departement(dep).nom).replace(/ \d+(er|e) Arrondissement$/, '');
  if (dep === '57' || dep === '67' || dep === '68') return `Greffe du Tribunal Judiciaire de ${town}`;
  if (dep.length === 3) return `Greffe du Tribunal Mixte de Commerce de ${town}`;
  return `Greffe du Tribunal de Commerce de ${town}`;
}

const spaced = (siren: string) => `${siren.slice(0, 3)} ${siren.slice(3, 6)} ${siren.slice(6)}`;
const frenchDay = (day: number) => isoDay(day).split('-').reverse().join('/');
const MONTHS = ['janvier', 'février', 'mars', 'avril', 'mai', 'juin', 'juillet', 'août', 'septembre', 'octobre', 'novembre', 'décembre'];
function inWords(day: number): string {
  const d = new Date(day * 86_400_000);
  const n = d.getUTCDate();
  return `${n === 1 ? '1er' : n} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()}`;
}

/** The issue number of a bulletin on a day: the year and about one issue per working day. */
function parution(day: number): string {
  const year = yearOfDay(day);
  const dayOfYear = day - Math.round(Date.UTC(year, 0, 1) / 86_400_000);
  return `${year}${String(Math.floor((dayOfYear * 250) / 365) + 1).padStart(4, '0')}`;
}

function activityText(company: Company): string {
  return (NAF_LABELS.get(company.naf) ?? 'Travaux de construction').replace(/\s+n\.c\.a\.$/, '');
}

function registry(rng: Rng, sirens: string[]): string[] {
  return sirens.flatMap((s) => (rng.chance(0.5) ? [spaced(s), s] : [s, spaced(s)]));
}

function personOf(rng: Rng, company: Company): Record<string, unknown> {
  const commune = company.head.commune;
  const adresse = { numeroVoie: company.head.address.numero || undefined, typeVoie: company.head.address.typeVoie.toLowerCase(), nomVoie: company.head.address.libelleVoie, codePostal: commune.codePostal, ville: commune.nom, pays: 'france' };
  const immatriculation = { numeroIdentification: spaced(company.siren), codeRCS: 'RCS', nomGreffeImmat: (SEATS.get(commune.departement)?.nom ?? commune.nom).replace(/ \d+(er|e) Arrondissement$/, '') };
  if (company.individual) {
    return {
      typePersonne: 'pp',
      numeroImmatriculation: immatriculation,
      nom: company.nom,
      prenom: company.prenoms.join(', '),
      ...(company.head.enseigne ? { nomCommercial: company.head.enseigne } : {}),
      nationalite: 'Française',
      dateNaissance: `${1950 + rng.int(0, 50)}-${String(rng.int(1, 12)).padStart(2, '0')}`,
      adresseSiegeSocial: adresse,
      activite: activityText(company),
    };
  }
  return {
    typePersonne: 'pm',
    numeroImmatriculation: immatriculation,
    denomination: company.denomination,
    formeJuridique: FORMES.pick(rng),
    capital: { montantCapital: String(rng.pick([1000, 1500, 5000, 8000, 10000, 30000, 50000])), devise: 'EUR' },
    adresseSiegeSocial: adresse,
    administration: `Gérant : ${registerText(company.denomination.split(' ')[0] ?? 'DURAND')}, ${rng.pick(['Yann', 'Marie', 'Pierre', 'Nathalie', 'Julien'])}`,
    activite: activityText(company),
  };
}

function commercant(company: Company): string {
  if (!company.individual) return company.denomination;
  const name = `${company.nom}, ${company.prenoms.join(', ')}`;
  return company.head.enseigne ? `${company.head.enseigne}, ${name}` : name;
}

interface Announcement {
  k: number;
  family: Family;
  day: number;
  company: Company;
  /** The judgment of a proceeding: its family, nature and day. */
  judgment?: { famille: string; nature: string; day: number };
  other?: Company;
}

function complement(rng: Rng, a: Announcement, dep: string): string {
  const j = a.judgment as { nature: string; day: number };
  const mandataire = `${rng.pick(MANDATAIRES)}, ${rng.int(1, 40)} rue ${rng.pick(['de la République', 'Jean Jaurès', 'du Port', 'de Siam', 'Victor Hugo'])}, ${SEATS.get(dep)?.codePostal ?? '29200'} ${SEATS.get(dep)?.nom ?? 'Brest'}`;
  if (/ouverture/i.test(j.nature)) {
    const cessation = j.day - rng.int(20, 200);
    return `${j.nature.replace(/^Jugement d'ouverture/, "Jugement prononçant l'ouverture")}, date de cessation des paiements le ${frenchDay(cessation)}, désignant mandataire judiciaire ${mandataire}. Les déclarations des créances sont à adresser au mandataire judiciaire ou sur le portail électronique prévu par les articles L. 814-2 et L. 814-13 du code de commerce à l'adresse https://www.creditors-services.com dans les deux mois de la présente publication.`;
  }
  if (/conversion/i.test(j.nature)) return `Jugement prononçant la liquidation judiciaire, désignant liquidateur ${mandataire}.`;
  if (/plan/i.test(j.nature)) return `Jugement arrêtant le plan de redressement, durée du plan ${rng.int(5, 10)} ans, nommant commissaire à l'exécution du plan ${mandataire}.`;
  if (/clôture/i.test(j.nature)) return `${j.nature}.`;
  return `${j.nature}, ${mandataire}.`;
}

function record(seed: number, a: Announcement, publicationDay: number): Record<string, unknown> {
  const rng = rngFor(seed, `bodacc-record-${a.family}`, a.k);
  const c = a.company;
  const commune = c.head.commune;
  const dep = commune.departement;
  const region = REGION_OF.get(dep);
  const bulletin = BULLETIN[a.family];
  const issue = parution(publicationDay);
  const numero = a.k + 1;
  const id = `${bulletin}${issue}${numero}`;
  const typeRoll = rng.next();
  const [typeavis, typeavisLib] = typeRoll < 0.95 ? ['annonce', 'Avis initial'] : typeRoll < 0.99 ? ['rectificatif', 'Avis rectificatif'] : ['annulation', "Avis d'annulation"];
  const person = personOf(rng, c);
  const sirens = a.other ? [c.siren, a.other.siren] : [c.siren];
  const out: Record<string, unknown> = {
    id,
    publicationavis: bulletin,
    publicationavis_facette: `Bodacc ${bulletin}`,
    parution: issue,
    dateparution: isoDay(publicationDay),
    numeroannonce: numero,
    typeavis,
    typeavis_lib: typeavisLib,
    familleavis: a.family,
    familleavis_lib: FAMILY_LABELS[a.family],
    numerodepartement: dep,
    departement_nom_officiel: departement(dep).nom,
    region_code: region ? Number(region.code) : null,
    region_nom_officiel: region?.nom ?? null,
    tribunal: tribunal(dep),
    commercant: commercant(c),
    ville: commune.ville?.nom ?? commune.nom,
    registre: registry(rng, sirens),
    cp: commune.codePostal,
    listepersonnes: JSON.stringify({ personne: person }),
    listeetablissements: null,
    jugement: null,
    acte: null,
    modificationsgenerales: null,
    radiationaurcs: null,
    depot: null,
    listeprecedentexploitant: null,
    listeprecedentproprietaire: null,
    divers: null,
    parutionavisprecedent: typeavis === 'annonce' ? null : JSON.stringify({ nomPublication: `BODACC ${bulletin}`, numeroParution: parution(publicationDay - rng.int(7, 60)), numeroAnnonce: rng.int(100, 4000) }),
    url_complete: `https://www.bodacc.fr/pages/annonces-commerciales-detail/?q.id=id:${id}`,
  };
  const etablissement = (origine: string) =>
    JSON.stringify({ etablissement: { origineFonds: origine, qualiteEtablissement: 'Établissement principal', activite: activityText(c), adresse: { ...(person.adresseSiegeSocial as object) }, ...(c.head.enseigne ? { enseigne: c.head.enseigne } : {}) } });
  switch (a.family) {
    case 'collective':
    case 'conciliation':
    case 'retablissement_professionnel': {
      const j = a.judgment as { famille: string; nature: string; day: number };
      const words = rng.chance(0.1);
      out.jugement = JSON.stringify({ type: 'initial', famille: j.famille, nature: j.nature, date: words ? inWords(j.day) : isoDay(j.day), complementJugement: complement(rng, a, dep) });
      break;
    }
    case 'creation':
      out.listeetablissements = etablissement("Création d'un fonds de commerce");
      out.acte = JSON.stringify({
        creation: { categorieCreation: c.individual ? "Immatriculation d'une personne physique suite à création d'un établissement principal" : "Immatriculation d'une personne morale (B, C, D) suite à création d'un établissement principal" },
        dateImmatriculation: isoDay(publicationDay - rng.int(5, 20)),
        dateCommencementActivite: isoDay(publicationDay - rng.int(20, 60)),
      });
      break;
    case 'immatriculation':
      out.acte = JSON.stringify({ immatriculation: { categorieImmatriculation: 'Immatriculation suite à transfert' }, descriptif: "Immatriculation suite à transfert de l'établissement principal hors ressort.", dateImmatriculation: isoDay(publicationDay - rng.int(5, 20)) });
      break;
    case 'vente': {
      const seller = a.other as Company;
      const price = rng.int(20, 400) * 1000;
      out.listeetablissements = etablissement(`Fonds acquis par achat au prix stipulé de ${price} EUR`);
      out.listeprecedentproprietaire = JSON.stringify({ personne: personOf(rng, seller) });
      out.acte = JSON.stringify({
        vente: { categorieVente: c.individual ? "Achat d'un fonds par une personne physique" : "Achat d'un fonds par une personne morale (insertion provisoire)", dateEffet: inWords(publicationDay - rng.int(10, 40)), opposition: `Oppositions dans les dix jours de la dernière en date des publicités légales au siège du fonds.` },
        dateCommencementActivite: isoDay(publicationDay - rng.int(10, 40)),
      });
      break;
    }
    case 'modification':
      out.modificationsgenerales = JSON.stringify({ descriptif: rng.pick(MODIFICATIONS) });
      break;
    case 'radiation':
      out.radiationaurcs = JSON.stringify(c.individual ? { radiationPP: { dateCessationActivitePP: isoDay(publicationDay - rng.int(10, 90)) } } : { radiationPM: 'O', commentaire: 'Radiation du registre du commerce et des sociétés' });
      break;
    case 'dpc':
      out.depot = JSON.stringify({ dateCloture: `${yearOfDay(publicationDay) - 1}-12-31`, typeDepot: DEPOTS.pick(rng) });
      out.listepersonnes = JSON.stringify({ personne: { typePersonne: person.typePersonne, numeroImmatriculation: person.numeroImmatriculation, denomination: c.individual ? undefined : c.denomination, formeJuridique: person.formeJuridique } });
      break;
    case 'divers':
      out.acte = JSON.stringify({ descriptif: rng.pick(['Avis de mise en location-gérance du fonds de commerce.', 'Avis de fin de location-gérance du fonds de commerce.', 'Avis de dissolution anticipée de la société.']) });
      break;
  }
  return out;
}

/** Fixed days of the first receivership (the catalogue's recipes name it). */
export const SHOWCASE = { opening: '2025-06-10', published: '2025-06-18', conversion: '2025-10-07', convertedPublished: '2025-10-15' } as const;

/**
 * A company created before `before`. The first receivership asks instead for a company at
 * least ten years old (its age does not depend on today, its creation day does), so that
 * the same company is picked whatever the day the demo set is written.
 */
function companyFor(rng: Rng, companies: CompanyIndex, before: number, individualOk: boolean, today?: number, accept: (c: Company) => boolean = () => true): Company {
  if (today !== undefined) {
    for (;;) {
      const company = companies.company(rng.int(0, companies.count - 1));
      if (!company.individual && !company.ceased && today - company.creation > 10 * 365) return company;
    }
  }
  let company = companies.company(rng.int(0, companies.count - 1));
  for (let i = 0; i < 40 && (company.creation >= before || (!individualOk && company.individual) || !accept(company)); i++) company = companies.company(rng.int(0, companies.count - 1));
  return company;
}

/** The receiverships: a company, its opening, then a plan or a conversion, then (after a liquidation) the closing. */
function receiverships(ctx: DemoContext, companies: CompanyIndex, count: number): { announcement: Announcement; published: number }[] {
  const out: { announcement: Announcement; published: number }[] = [];
  const stories = Math.max(3, Math.round(count / 300));
  for (let s = 0; s < stories && out.length < count; s++) {
    const rng = rngFor(ctx.seed, 'bodacc-receivership', s);
    const fixed = s === 0;
    const opening = fixed ? (parseIsoDay(SHOWCASE.opening) as number) : ctx.today - rng.int(60, 700);
    const company = companyFor(rng, companies, opening - 365, !fixed, fixed ? ctx.today : undefined);
    const k = () => out.length;
    out.push({
      announcement: { k: k(), family: 'collective', day: opening, company, judgment: { famille: "Jugement d'ouverture", nature: "Jugement d'ouverture d'une procédure de redressement judiciaire", day: opening } },
      published: fixed ? (parseIsoDay(SHOWCASE.published) as number) : opening + rng.int(5, 12),
    });
    const second = fixed ? (parseIsoDay(SHOWCASE.conversion) as number) : opening + rng.int(90, 200);
    if (second >= ctx.today - 10) continue;
    const converted = fixed || rng.chance(0.6);
    out.push({
      announcement: {
        k: k(),
        family: 'collective',
        day: second,
        company,
        judgment: converted ? { famille: 'Jugement prononçant', nature: 'Jugement de conversion en liquidation judiciaire', day: second } : { famille: 'Jugement prononçant', nature: 'Jugement arrêtant le plan de redressement', day: second },
      },
      published: fixed ? (parseIsoDay(SHOWCASE.convertedPublished) as number) : second + rng.int(5, 12),
    });
    const third = second + rng.int(150, 300);
    if (!converted || fixed || third >= ctx.today - 10) continue;
    out.push({
      announcement: { k: k(), family: 'collective', day: third, company, judgment: { famille: 'Jugement de clôture', nature: "Jugement de clôture pour insuffisance d'actif", day: third } },
      published: third + rng.int(5, 12),
    });
  }
  return out;
}

/** Writes `count` announcements as an Explore API answer (JSON) and as JSON lines. */
export async function writeBodacc(
  ctx: DemoContext,
  count: number,
  companies: CompanyIndex,
  jsonPath: string,
  jsonlPath: string,
): Promise<{ rows: number; jsonBytes: number; jsonlBytes: number; showcase: { id: string; siren: string } }> {
  const json = await FileWriter.open(jsonPath);
  const jsonl = await FileWriter.open(jsonlPath);
  try {
    json.push(`{"total_count": ${count}, "results": [\n`);
    const stories = receiverships(ctx, companies, count);
    let showcase = { id: '', siren: '' };
    const span = count > 50_000 ? 730 : 365;
    for (let k = 0; k < count; k++) {
      let announcement: Announcement;
      let published: number;
      const story = stories[k];
      if (story) {
        ({ announcement, published } = story);
      } else {
        const rng = rngFor(ctx.seed, 'bodacc', k);
        published = ctx.today - 1 - Math.floor(Math.pow(rng.next(), 1.3) * span);
        const family = FAMILIES.pick(rng);
        // Accounts filed are those of a year the company lived through: created three months
        // at least before the closing, not ceased before it (as the ratios file has them).
        const closing = parseIsoDay(`${yearOfDay(published) - 1}-12-31`) as number;
        const company =
          family === 'dpc'
            ? companyFor(rng, companies, closing - 90, false, undefined, (c) => c.cessation === null || c.cessation >= closing)
            : companyFor(rng, companies, published - 30, family !== 'conciliation');
        announcement = { k, family, day: published, company };
        if (family === 'collective') {
          const [famille, nature] = COLLECTIVE.pick(rng);
          announcement.judgment = { famille, nature, day: published - rng.int(5, 12) };
        } else if (family === 'conciliation') {
          announcement.judgment = { famille: 'Jugement prononçant', nature: "Jugement d'ouverture d'une procédure de conciliation", day: published - rng.int(5, 12) };
        } else if (family === 'retablissement_professionnel') {
          const opening = rng.chance(0.6);
          announcement.judgment = {
            famille: opening ? "Jugement d'ouverture" : 'Jugement de clôture',
            nature: opening ? "Jugement d'ouverture d'une procédure de rétablissement professionnel" : "Jugement de clôture d'une procédure de rétablissement professionnel",
            day: published - rng.int(5, 12),
          };
        } else if (family === 'vente') {
          announcement.other = companyFor(rng, companies, published - 365, true);
          if (announcement.other.siren === company.siren) delete announcement.other;
        }
      }
      const value = record(ctx.seed, announcement, published);
      if (k === 0) showcase = { id: value.id as string, siren: announcement.company.siren };
      const line = JSON.stringify(value);
      json.push(k === 0 ? line : `,\n${line}`);
      jsonl.push(`${line}\n`);
      if (json.full) await json.flush();
      if (jsonl.full) await jsonl.flush();
    }
    json.push('\n]}\n');
    const jsonBytes = await json.close();
    const jsonlBytes = await jsonl.close();
    return { rows: count, jsonBytes, jsonlBytes, showcase };
  } catch (err) {
    await json.abort();
    await jsonl.abort();
    throw err;
  }
}
