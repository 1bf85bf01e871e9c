// BOAMP open-data notices: records of the export ({"results": [...]} and one record a
// line), with the full notice as a JSON string in `donnees` (CPV and buyer contact inside).
import type { BuyerPicker, Buyer } from './buyers.js';
import type { CompanyIndex, DemoContext } from './companies.js';
import { rngFor, type Rng } from './prng.js';
import { FileWriter, isoDay, parisHourUtc, yearOfDay } from './util.js';
import { amount, workFor, type Work } from './works.js';

export interface BoampRecord {
  idweb: string;
  id: string;
  objet: string;
  famille: string;
  code_departement: string[];
  dateparution: string;
  datefindiffusion: string;
  datelimitereponse: string | null;
  nomacheteur: string;
  titulaire: string[] | null;
  procedure_libelle: string;
  etat: string;
  descripteur_code: string[];
  descripteur_libelle: string[];
  type_marche: string[];
  annonce_lie: string | null;
  nature: string;
  nature_libelle: string;
  url_avis: string;
  donnees: string;
}

/** A call for tenders for works, as the consultation files of the demo need it. */
export interface Tender {
  idweb: string;
  objet: string;
  acheteur: string;
  lieu: string;
  description: string;
  deadline: string;
  dureeMois: number;
  lots: { numero: number; intitule: string }[];
}

/** Calls for tenders kept for the demo consultation files (more than any scale writes). */
const MAX_TENDERS = 20_000;

export function tenderOf(record: BoampRecord): Tender {
  const objet = (JSON.parse(record.donnees) as { OBJET: { OBJET_COMPLET: string; LIEU_EXEC_LIVR: string; DUREE_DELAI: { NB_MOIS: string }; LOTS?: { LOT: { NUM: string; INTITULE: string }[] } } }).OBJET;
  return {
    idweb: record.idweb,
    objet: record.objet,
    acheteur: record.nomacheteur,
    lieu: objet.LIEU_EXEC_LIVR,
    description: objet.OBJET_COMPLET,
    deadline: record.datelimitereponse ?? '',
    dureeMois: Number(objet.DUREE_DELAI.NB_MOIS),
    lots: (objet.LOTS?.LOT ?? []).map((l) => ({ numero: Number(l.NUM), intitule: l.INTITULE })),
  };
}

interface Published {
  idweb: string;
  day: number;
  deadline: number;
  buyer: Buyer;
  work: Work;
  procedure: string;
  famille: string;
  awarded: boolean;
}

/**
 * A sample of earlier calls for tenders, for the later rectifications and award notices
 * that refer to them; sampled so that it covers about two months at any scale.
 */
class RecentNotices {
  private readonly items: Published[] = [];
  private next = 0;

  constructor(private readonly capacity: number) {}

  /** Keeps `p` with probability `keep` (lower where notices are dense). */
  add(rng: Rng, p: Published, keep: number): void {
    if (!rng.chance(keep)) return;
    if (this.items.length < this.capacity) this.items.push(p);
    else this.items[this.next] = p;
    this.next = (this.next + 1) % this.capacity;
  }

  find(rng: Rng, test: (p: Published) => boolean): Published | undefined {
    if (this.items.length === 0) return undefined;
    for (let i = 0; i < 8; i++) {
      const p = rng.pick(this.items);
      if (test(p)) return p;
    }
    return undefined;
  }
}

/** Size of that sample: enough earlier notices for the award notices of a dense day. */
const SAMPLE = 30_000;

const DESCRIPTEUR_CODES = new Map<string, string>();

function descripteurCode(label: string): string {
  let code = DESCRIPTEUR_CODES.get(label);
  if (!code) {
    let h = 0;
    for (let i = 0; i < label.length; i++) h = (h * 31 + label.charCodeAt(i)) % 900;
    code = String(100 + h);
    DESCRIPTEUR_CODES.set(label, code);
  }
  return code;
}

function procedureOf(rng: Rng, work: Work): { procedure: string; famille: string } {
  const europe = work.typeMarche === 'TRAVAUX' ? 5_538_000 : 221_000;
  if (work.montantEstime >= europe) return { procedure: "Appel d'offres ouvert", famille: 'JOUE' };
  if (work.montantEstime >= 1_000_000 && rng.chance(0.5)) return { procedure: "Appel d'offres ouvert", famille: 'FNS' };
  return { procedure: 'Procédure adaptée', famille: rng.chance(0.75) ? 'MAPA' : 'FNS' };
}

function identite(b: Buyer): Record<string, string> {
  return {
    DENOMINATION: b.nom,
    CONTACT: b.contact,
    ADRESSE: b.adresse,
    CP: b.seat.codePostal,
    VILLE: b.communeNom,
    TEL: b.telephone,
    MEL: b.email,
    URL: b.url,
    URL_PROFIL_ACHETEUR: `${b.url}/marches-publics`,
  };
}

function objetBlock(p: Published): Record<string, unknown> {
  const w = p.work;
  const block: Record<string, unknown> = {
    TITRE_MARCHE: w.objet,
    CPV: { PRINCIPAL: w.cpv },
    OBJET_COMPLET: w.description,
    LIEU_EXEC_LIVR: `${p.buyer.communeNom} (${p.buyer.seat.codePostal})`,
    DUREE_DELAI: { NB_MOIS: String(w.dureeMois) },
  };
  if (w.lots.length > 0) {
    block.DIV_EN_LOTS = { OUI: '' };
    block.LOTS = { LOT: w.lots.map((l) => ({ NUM: String(l.numero), INTITULE: l.intitule, CPV: { PRINCIPAL: l.cpv } })) };
  } else {
    block.DIV_EN_LOTS = { NON: '' };
  }
  return block;
}

function url(idweb: string): string {
  return `https://www.boamp.fr/pages/avis/?q=idweb:"${idweb}"`;
}

/** Writes `count` notices to the JSON export and the JSON-lines file. */
export async function writeBoamp(
  ctx: DemoContext,
  count: number,
  picker: BuyerPicker,
  companies: CompanyIndex,
  jsonPath: string,
  jsonlPath: string,
): Promise<{ rows: number; jsonBytes: number; jsonlBytes: number; tenders: Tender[] }> {
  const tenders: Tender[] = [];
  const json = await FileWriter.open(jsonPath);
  const jsonl = await FileWriter.open(jsonlPath);
  try {
    json.push('{"results": [\n');
    const span = count > 50_000 ? 730 : 300;
    // Publication dates crowd towards today: about 40 % in the last 40 days, so many notices are still open.
    const exponent = Math.log(40 / span) / Math.log(0.4);
    const recent = new RecentNotices(SAMPLE);
    const counters = new Map<number, number>();
    const seq = rngFor(ctx.seed, 'boamp-numeros');
    for (let k = 0; k < count; k++) {
      const rng = rngFor(ctx.seed, 'boamp', k);
      const x = (k + 0.5) / count;
      const day = ctx.today - Math.round(span * Math.pow(1 - x, exponent));
      const year = yearOfDay(day);
      // Numbers grow through the year (about 380 a day on the real BOAMP), never repeating.
      const dayOfYear = day - Math.round(Date.UTC(year, 0, 1) / 86_400_000);
      const n = Math.max((counters.get(year) ?? 0) + seq.int(1, 3), 100 + dayOfYear * 380 + seq.int(0, 40));
      counters.set(year, n);
      const idweb = `${String(year % 100).padStart(2, '0')}-${n}`;
      // Notices per day around this one, so that the sample spans about 70 days.
      const perDay = count / (span * exponent * Math.pow(1 - x, exponent - 1));
      const keep = Math.min(1, SAMPLE / (perDay * 70));
      const record = noticeRecord(rng, idweb, day, picker, companies, recent, keep);
      if (record.nature === 'APPEL_OFFRE' && record.type_marche[0] === 'TRAVAUX' && tenders.length < MAX_TENDERS) tenders.push(tenderOf(record));
      const line = JSON.stringify(record);
      json.push(k === 0 ? line : `,\n${line}`);
      jsonl.push(`${line}\n`);
      if (json.full) await json.flush();
      if (jsonl.full) await jsonl.flush();
    }
    json.push('\n]}\n');
    const jsonBytes = await json.close();
    const jsonlBytes = await jsonl.close();
    return { rows: count, jsonBytes, jsonlBytes, tenders };
  } catch (err) {
    await json.abort();
    await jsonl.abort();
    throw err;
  }
}

function noticeRecord(
  rng: Rng,
  idweb: string,
  day: number,
  picker: BuyerPicker,
  companies: CompanyIndex,
  recent: RecentNotices,
  keep: number,
): BoampRecord {
  const roll = rng.next();
  if (roll < 0.16) {
    const initial = recent.find(rng, (p) => p.deadline < day && !p.awarded);
    if (initial) return attribution(rng, idweb, day, initial, companies);
  } else if (roll > 0.92) {
    const initial = recent.find(rng, (p) => p.deadline > day + 3);
    if (initial) return rectificatif(rng, idweb, day, initial);
  }

  const buyer = picker.pick(rng);
  const work = workFor(rng, buyer, picker.neighbour(rng, buyer), yearOfDay(day));
  const { procedure, famille } = procedureOf(rng, work);
  const deadline = day + (procedure === 'Procédure adaptée' ? rng.int(15, 35) : rng.int(35, 52));
  const published: Published = { idweb, day, deadline, buyer, work, procedure, famille, awarded: false };
  recent.add(rng, published, keep);
  const hour = rng.pick([12, 12, 12, 16, 17]);
  const limite = parisHourUtc(deadline, hour);
  const donnees = {
    IDENTITE: identite(buyer),
    OBJET: objetBlock(published),
    PROCEDURE: {
      TYPE_PROCEDURE: procedure === 'Procédure adaptée' ? { PROCEDURE_ADAPTEE: '' } : { OUVERT: '' },
      CRITERES_ATTRIBUTION: { CRITERES_LIBRE: 'Valeur technique : 60 % ; Prix : 40 %' },
    },
    CONDITION_DELAI: { RECEPT_OFFRES: `${isoDay(deadline)}T${hour}:00:00` },
    RENSEIGNEMENTS_COMPLEMENTAIRES: `Dossier de consultation téléchargeable sur ${buyer.url}/marches-publics. Renseignements : ${buyer.contact}, tél. ${buyer.telephone}, courriel ${buyer.email}.`,
  };
  return {
    idweb,
    id: idweb,
    objet: work.objet,
    famille,
    code_departement: [buyer.departement],
    dateparution: isoDay(day),
    datefindiffusion: isoDay(deadline),
    datelimitereponse: limite,
    nomacheteur: buyer.nom,
    titulaire: null,
    procedure_libelle: procedure,
    etat: 'INITIAL',
    descripteur_code: work.descripteurs.map(descripteurCode),
    descripteur_libelle: work.descripteurs,
    type_marche: [work.typeMarche],
    annonce_lie: null,
    nature: 'APPEL_OFFRE',
    nature_libelle: 'Avis de marché',
    url_avis: url(idweb),
    donnees: JSON.stringify(donnees),
  };
}

function rectificatif(rng: Rng, idweb: string, day: number, initial: Published): BoampRecord {
  const deadline = initial.deadline + rng.int(7, 14);
  initial.deadline = deadline;
  const limite = parisHourUtc(deadline, 12);
  const donnees = {
    IDENTITE: identite(initial.buyer),
    OBJET: objetBlock(initial),
    RECTIF: {
      ANNONCE_INITIALE: { IDWEB: initial.idweb, DATE_PUBLICATION: isoDay(initial.day) },
      MODIFICATION: `La date limite de remise des offres est reportée au ${isoDay(deadline).split('-').reverse().join('/')} à 12 h 00.`,
    },
    CONDITION_DELAI: { RECEPT_OFFRES: `${isoDay(deadline)}T12:00:00` },
  };
  return {
    idweb,
    id: idweb,
    objet: initial.work.objet,
    famille: initial.famille,
    code_departement: [initial.buyer.departement],
    dateparution: isoDay(day),
    datefindiffusion: isoDay(deadline),
    datelimitereponse: limite,
    nomacheteur: initial.buyer.nom,
    titulaire: null,
    procedure_libelle: initial.procedure,
    etat: 'RECTIFICATIF',
    descripteur_code: initial.work.descripteurs.map(descripteurCode),
    descripteur_libelle: initial.work.descripteurs,
    type_marche: [initial.work.typeMarche],
    annonce_lie: initial.idweb,
    nature: 'RECTIFICATIF',
    nature_libelle: 'Rectificatif',
    url_avis: url(idweb),
    donnees: JSON.stringify(donnees),
  };
}

function attribution(rng: Rng, idweb: string, day: number, initial: Published, companies: CompanyIndex): BoampRecord {
  initial.awarded = true;
  const w = initial.work;
  const lots = w.lots.length > 0 ? w.lots : [{ numero: 1, intitule: w.objet, cpv: w.cpv, nafs: w.nafs }];
  const total = w.montantEstime;
  const decisions = lots.map((lot) => {
    const share = lots.length > 1 ? total / lots.length : total;
    const montant = Math.round(amount(rng, share * 0.7, share * 1.15) * 100) / 100;
    if (lot.nafs.length === 0) {
      return { NUM_LOT: String(lot.numero), INTITULE: lot.intitule, TITULAIRE: { DENOMINATION: "Groupement de maîtrise d'œuvre" }, MONTANT: montant.toFixed(2) };
    }
    const c = companies.company(companies.pick(rng, initial.buyer.region, lot.nafs));
    return {
      NUM_LOT: String(lot.numero),
      INTITULE: lot.intitule,
      TITULAIRE: {
        DENOMINATION: c.officialName,
        SIRET: c.head.siret,
        ADRESSE: c.head.commune.codePostal + ' ' + c.head.commune.nom,
      },
      MONTANT: montant.toFixed(2),
    };
  });
  const donnees = {
    IDENTITE: identite(initial.buyer),
    OBJET: objetBlock(initial),
    ATTRIBUTION: {
      ANNONCE_INITIALE: { IDWEB: initial.idweb, DATE_PUBLICATION: isoDay(initial.day) },
      DATE_DECISION: isoDay(Math.min(day - 1, initial.deadline + rng.int(10, 40))),
      DECISION: decisions,
    },
  };
  return {
    idweb,
    id: idweb,
    objet: w.objet,
    famille: initial.famille,
    code_departement: [initial.buyer.departement],
    dateparution: isoDay(day),
    datefindiffusion: isoDay(day + 60),
    datelimitereponse: null,
    nomacheteur: initial.buyer.nom,
    titulaire: [...new Set(decisions.map((d) => d.TITULAIRE.DENOMINATION))],
    procedure_libelle: initial.procedure,
    etat: 'INITIAL',
    descripteur_code: w.descripteurs.map(descripteurCode),
    descripteur_libelle: w.descripteurs,
    type_marche: [w.typeMarche],
    annonce_lie: initial.idweb,
    nature: 'ATTRIBUTION',
    nature_libelle: 'Résultat de marché',
    url_avis: url(idweb),
    donnees: JSON.stringify(donnees),
  };
}
