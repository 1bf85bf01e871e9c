// The ADEME list of RGE-qualified firms: one row per establishment and qualification, with
// the contact fields the real file carries (telephone, email, site_internet).
import type { Company, CompanyIndex, DemoContext } from './companies.js';
import { companyTraits, NAF_CODES } from './companies.js';
import { registerText, telephonePrefix } from './communes.js';
import { addressLine, slug } from './names.js';
import { rngFor, type Rng } from './prng.js';
import { csvLine, FileWriter, isoDay } from './util.js';

export const RGE_HEADER = [
  'nom_entreprise', 'siret', 'adresse', 'code_postal', 'commune', 'latitude', 'longitude', 'telephone', 'email',
  'site_internet', 'organisme', 'domaine', 'meta_domaine', 'code_qualification', 'nom_qualification', 'lien_date_debut',
  'lien_date_fin', 'particulier',
] as const;

interface Qualification {
  organisme: string;
  code: string;
  nom: string;
  domaine: string;
  meta: string;
  /** Validity in years. */
  years: number;
}

const EFFICACITE = "Travaux d'efficacité énergétique";
const ENR = "Installations d'énergies renouvelables";
const GLOBALE = 'Rénovation globale';

const q = (organisme: string, code: string, nom: string, domaine: string, meta: string, years = 4): Qualification => ({ organisme, code, nom, domaine, meta, years });

const Q = {
  ite: q('qualibat', '7131', "Isolation thermique par l'extérieur (RGE)", "Isolation des murs par l'extérieur", EFFICACITE),
  iti: q('qualibat', '7121', "Isolation thermique par l'intérieur (RGE)", "Isolation des murs par l'intérieur", EFFICACITE),
  combles: q('qualibat', '7141', 'Isolation thermique des combles (RGE)', 'Isolation des combles perdus', EFFICACITE),
  toiture: q('qualibat', '3151', 'Isolation de toitures en pente (RGE)', 'Isolation des rampants de toiture et plafonds de combles', EFFICACITE),
  terrasse: q('qualibat', '3611', 'Étanchéité et isolation de toitures-terrasses (RGE)', 'Isolation des toitures terrasses', EFFICACITE),
  plancher: q('qualibat', '7151', 'Isolation des planchers bas (RGE)', 'Isolation des planchers bas', EFFICACITE),
  menuiseries: q('qualibat', '3521', 'Menuiseries extérieures (RGE)', 'Fenêtres, volets, portes extérieures', EFFICACITE),
  chaudiere: q('qualibat', '5211', 'Installation de chaudières à condensation (RGE)', 'Chaudière condensation ou micro-cogénération gaz ou fioul', EFFICACITE),
  ventilation: q('qualibat', '5421', 'Ventilation mécanique contrôlée (RGE)', 'Ventilation mécanique', EFFICACITE),
  globale: q('qualibat', '8621', 'Offre globale de rénovation énergétique (RGE)', 'Projet complet de rénovation', GLOBALE),
  pac: q('qualitenr', '60', 'QualiPAC module Chauffage et ECS', 'Pompe à chaleur : chauffage', ENR, 1),
  pacEcs: q('qualitenr', '61', 'QualiPAC module CET', 'Pompe à chaleur : chauffe-eau thermodynamique', ENR, 1),
  solaire: q('qualitenr', '20', 'QualiSol CESI', 'Chauffage et/ou eau chaude solaire', ENR, 1),
  boisAir: q('qualitenr', '40', 'QualiBois module Air', 'Poêle ou insert bois', ENR, 1),
  boisEau: q('qualitenr', '41', 'QualiBois module Eau', 'Chaudière bois', ENR, 1),
  pv: q('qualitenr', '32', 'QualiPV module Elec', 'Panneaux photovoltaïques', ENR, 1),
  pvElec: q('qualifelec', 'PV2', 'Qualifelec RGE Photovoltaïque', 'Panneaux photovoltaïques', ENR),
  radiateurs: q('qualifelec', 'EE1', "Qualifelec RGE Économies d'énergie", 'Radiateurs électriques, dont régulation.', EFFICACITE),
  vmcElec: q('qualifelec', 'EE2', 'Qualifelec RGE Ventilation', 'Ventilation mécanique', EFFICACITE),
} as const;

const BY_NAF: Readonly<Record<string, readonly Qualification[]>> = {
  '43.29A': [Q.ite, Q.iti, Q.combles, Q.toiture, Q.plancher],
  '43.31Z': [Q.iti, Q.combles, Q.plancher],
  '43.99D': [Q.ite, Q.iti],
  '43.34Z': [Q.ite, Q.iti],
  '43.32A': [Q.menuiseries],
  '43.32B': [Q.menuiseries],
  '43.22B': [Q.pac, Q.pacEcs, Q.chaudiere, Q.solaire, Q.boisEau, Q.ventilation],
  '43.22A': [Q.chaudiere, Q.pacEcs, Q.solaire, Q.boisAir, Q.pac],
  '43.21A': [Q.pvElec, Q.pv, Q.radiateurs, Q.vmcElec, Q.pacEcs],
  '43.91A': [Q.toiture, Q.combles],
  '43.91B': [Q.toiture, Q.combles, Q.pv],
  '43.99A': [Q.terrasse],
  '43.99C': [Q.globale, Q.ite, Q.iti],
  '41.20A': [Q.globale],
  '41.20B': [Q.globale, Q.ite],
};

const ELIGIBLE = new Set(Object.keys(BY_NAF));

function contact(rng: Rng, c: Company, name: string): { telephone: string; email: string; site: string } {
  const s = slug(name).slice(0, 40) || 'entreprise';
  const mobile = rng.chance(0.35);
  const prefix = mobile ? `0${rng.pick(['6', '7'])} ${rng.digits(2)}` : telephonePrefix(c.head.commune.departement);
  const telephone = `${prefix} ${rng.digits(2)} ${rng.digits(2)} ${rng.digits(2)}`;
  const roll = rng.next();
  const email =
    roll < 0.5 ? `contact@${s}.fr` : roll < 0.7 ? `${s.replace(/-/g, '.')}@orange.fr` : roll < 0.85 ? `${s.replace(/-/g, '')}@gmail.com` : `${s}@wanadoo.fr`;
  const siteRoll = rng.next();
  const site = siteRoll < 0.45 ? `https://www.${s}.fr` : siteRoll < 0.75 ? `www.${s}.fr` : '';
  return { telephone, email, site };
}

/**
 * Writes `target` rows for active establishments whose trade has RGE qualifications,
 * visiting the companies in a seeded order (each at most once).
 */
export async function writeRge(ctx: DemoContext, companies: CompanyIndex, target: number, path: string): Promise<{ rows: number; bytes: number }> {
  const out = await FileWriter.open(path);
  try {
    out.push(csvLine(RGE_HEADER));
    const n = companies.count;
    const order = rngFor(ctx.seed, 'rge-ordre');
    let step = 1 + order.int(0, n - 1);
    while (gcd(step, n) !== 1) step++;
    const start = order.int(0, n - 1);
    let rows = 0;
    for (let visited = 0; visited < n && rows < target; visited++) {
      const i = (start + visited * step) % n;
      const traits = companyTraits(ctx, i);
      if (traits.ceased || !ELIGIBLE.has(NAF_CODES[traits.nafIndex]!)) continue;
      const c = companies.company(i);
      const head = c.head;
      if (!head.open) continue;
      const rng = rngFor(ctx.seed, 'rge', i);
      const quals = BY_NAF[c.naf] ?? [];
      const chosen = quals.filter((_, idx) => idx === 0 || rng.chance(0.45)).slice(0, 3);
      const name = c.individual ? (head.enseigne || `${c.nom} ${c.prenoms[0] ?? ''}`) : c.displayName;
      const { telephone, email, site } = contact(rng, c, name);
      const lat = (head.commune.lat + head.jitterLat).toFixed(6);
      const lon = (head.commune.lon + head.jitterLon).toFixed(6);
      const particulier = rng.chance(0.85) ? 'true' : 'false';
      for (const qual of chosen) {
        if (rows >= target) break;
        const years = qual.years * 365;
        let debut: number;
        let fin: number;
        if (rng.chance(0.12)) {
          fin = ctx.today - rng.int(1, 300);
          debut = fin - years;
        } else {
          debut = ctx.today - rng.int(10, years - 10);
          fin = debut + years;
        }
        out.push(
          csvLine([
            registerText(name),
            head.siret,
            registerText(addressLine(head.address)),
            head.commune.codePostal,
            registerText(head.commune.ville?.nom ?? head.commune.nom),
            lat,
            lon,
            telephone,
            email,
            site,
            qual.organisme,
            qual.domaine,
            qual.meta,
            qual.code,
            qual.nom,
            isoDay(debut),
            isoDay(fin),
            particulier,
          ]),
        );
        rows++;
      }
      if (out.full) await out.flush();
    }
    return { rows, bytes: await out.close() };
  } catch (err) {
    await out.abort();
    throw err;
  }
}

function gcd(a: number, b: number): number {
  while (b) [a, b] = [b, a % b];
  return a;
}
