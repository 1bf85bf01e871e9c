// The register's companies (RNE stock: a zip of JSON files, each an array of companies) and
// their published accounts (ratios BCE/INPI CSV export: `;`, UTF-8 BOM, gzipped). Every demo
// company has its formality, as the real register covers them all: a company (personne
// morale) with its officers and capital, an individual entrepreneur (personne physique) as
// the entrepreneur. Officers' and entrepreneurs' full dates of birth and home addresses are
// written as the register holds them: the importer must drop them. Accounts for a share of
// the companies.
import { createWriteStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { Readable } from 'node:stream';
import { createGzip } from 'node:zlib';
import { once } from 'node:events';
import yazl from 'yazl';
import type { Company, CompanyIndex, DemoContext } from './companies.js';
import { registerText, type Commune } from './communes.js';
import { address, familyName, firstName, type Address } from './names.js';
import { rngFor, type Rng } from './prng.js';
import { isoDay, parseIsoDay, yearOfDay } from './util.js';

/** Share of the companies (not individual entrepreneurs) with accounts. */
const ACCOUNTS_SHARE = 0.6;
/** Companies per JSON file of the stock, as the INPI cuts its stock into many files. */
const COMPANIES_PER_FILE = 10_000;
/** Companies serialised at a time inside a part: a part is streamed, never held whole. */
const COMPANIES_PER_CHUNK = 500;
/** Share of the register's companies that refused commercial diffusion. */
const NOT_DIFFUSIBLE = 0.03;
/** A fixed date for the zip entries: the same seed writes the same bytes. */
const ENTRY_DATE = new Date('2026-01-01T00:00:00Z');

const RATIOS_HEADER =
  'siren;date_cloture_exercice;chiffre_d_affaires;marge_brute;ebe;ebit;resultat_net;taux_d_endettement;ratio_de_liquidite;ratio_de_vetuste;autonomie_financiere;poids_bfr_exploitation_sur_ca;couverture_des_interets;caf_sur_ca;capacite_de_remboursement;marge_ebe;resultat_courant_avant_impots_sur_ca;poids_bfr_exploitation_sur_ca_jours;rotation_des_stocks_jours;credit_clients_jours;credit_fournisseurs_jours;type_bilan;confidentiality';

const ROLES_SARL = ['30', '30', '30', '29'];
const ROLES_SAS = ['73', '73', '53', '70', '65'];

/** A date of birth as the register writes it (full), between the given years. */
function birthDate(rng: Rng, from: number, to: number): string {
  return `${rng.int(from, Math.max(from, to))}-${String(rng.int(1, 12)).padStart(2, '0')}-${String(rng.int(1, 28)).padStart(2, '0')}`;
}

/** An address in the register's shape (`adresseDomicile`, `adresseEntreprise.adresse`). */
function rneAddress(a: Address, commune: Commune): Record<string, unknown> {
  return {
    pays: 'FRANCE',
    codePays: 'FRA',
    codePostal: commune.codePostal,
    commune: registerText(commune.ville?.nom ?? commune.nom),
    codeInseeCommune: commune.ville?.code ?? commune.code,
    ...(a.numero ? { numVoie: a.numero } : {}),
    ...(a.indice ? { indiceRepetition: a.indice } : {}),
    typeVoie: a.typeVoie,
    voie: registerText(a.libelleVoie),
    ...(a.complement ? { complementLocalisation: registerText(a.complement) } : {}),
  };
}

/** A home: a street address (never a business zone), without a building complement. */
function homeAddress(rng: Rng, region: string): Address {
  let a = address(rng, region);
  for (let k = 0; k < 8 && (a.typeVoie === 'ZA' || a.typeVoie === 'ZI'); k++) a = address(rng, region);
  const zone = a.typeVoie === 'ZA' || a.typeVoie === 'ZI';
  return { ...a, typeVoie: zone ? 'RUE' : a.typeVoie, complement: '', distribution: '' };
}

/** The formality of a company (personne morale): its officers, some of them companies, and its capital. */
function legalPerson(companies: CompanyIndex, c: Company, rng: Rng): Record<string, unknown> {
  const sas = /SAS|SA /.test(c.officialName) || rng.chance(0.4);
  const count = rng.int(1, 3);
  const pouvoirs: unknown[] = [];
  for (let k = 0; k < count; k++) {
    if (k > 0 && rng.chance(0.15)) {
      const other = companies.company(rng.int(0, companies.count - 1));
      pouvoirs.push({ typeDePersonne: 'ENTREPRISE', roleEntreprise: rng.pick(['71', '65', '30']), entreprise: { siren: other.siren, denomination: other.officialName, formeJuridique: '5710' } });
      continue;
    }
    const sexe = rng.chance(0.7) ? 'M' : 'F';
    const born = birthDate(rng, 1945, 1998);
    pouvoirs.push({
      typeDePersonne: 'INDIVIDU',
      roleEntreprise: rng.pick(sas ? ROLES_SAS : ROLES_SARL),
      actif: true,
      individu: {
        descriptionPersonne: { nom: familyName(rng, c.region).toUpperCase(), prenoms: [firstName(rng, sexe), ...(rng.chance(0.4) ? [firstName(rng, sexe)] : [])], dateDeNaissance: born, genre: sexe === 'M' ? '1' : '2' },
        adresseDomicile: { numVoie: String(rng.int(1, 80)), typeVoie: 'RUE', voie: 'DES DEMO', codePostal: c.commune.codePostal, commune: c.commune.nom },
      },
    });
  }
  const capital = rng.pick([1000, 1500, 5000, 7500, 10000, 15000, 30000, 37000, 50000, 100000, 150000, 500000]);
  const formeJuridique = sas ? '5710' : '5499';
  return {
    formeJuridique,
    typePersonne: 'M',
    content: {
      personneMorale: {
        identite: { entreprise: { siren: c.siren, denomination: c.officialName, formeJuridique }, description: { montantCapital: capital, deviseCapital: 'EUR', capitalVariable: false } },
        composition: { pouvoirs },
      },
    },
  };
}

/**
 * The formality of an individual entrepreneur (personne physique): the entrepreneur under
 * `identite.entrepreneur` (name, first names, full date and place of birth, home address),
 * no list of powers, the business address, no capital.
 */
function naturalPerson(c: Company, rng: Rng): Record<string, unknown> {
  // Of age when the business was created, and not more than 65 then.
  const created = yearOfDay(c.creation);
  const born = birthDate(rng, Math.max(1935, created - 65), created - 18);
  // Most artisans live in the commune of their business; some a little further.
  const home = rng.chance(0.6) ? c.commune : c.head.commune;
  return {
    formeJuridique: '1000',
    typePersonne: 'P',
    content: {
      personnePhysique: {
        identite: {
          entreprise: { siren: c.siren, formeJuridique: '1000', ...(c.head.enseigne ? { nomCommercial: registerText(c.head.enseigne) } : {}), dateImmat: isoDay(c.creation) },
          entrepreneur: {
            descriptionPersonne: {
              nom: registerText(c.nom),
              prenoms: c.prenoms,
              genre: c.sexe === 'F' ? '2' : '1',
              dateDeNaissance: born,
              lieuDeNaissance: registerText(rng.chance(0.5) ? c.commune.nom : c.head.commune.nom),
              nationalite: 'Française',
            },
            adresseDomicile: rneAddress(homeAddress(rng, c.region), home),
          },
        },
        adresseEntreprise: { caracteristiques: { ambulant: false, domiciliataire: false }, adresse: rneAddress(c.head.address, c.head.commune) },
      },
    },
  };
}

/** Company `i`'s record of the stock, as the register's API answers it. */
function rneCompany(ctx: DemoContext, companies: CompanyIndex, i: number): Record<string, unknown> {
  const c = companies.company(i);
  const rng = rngFor(ctx.seed, 'rne', i);
  const diffusionCommerciale = !rng.chance(NOT_DIFFUSIBLE);
  const { content, ...formality } = c.individual ? naturalPerson(c, rng) : legalPerson(companies, c, rng);
  return {
    id: `rne-${c.siren}`,
    siren: c.siren,
    updatedAt: `${isoDay(c.lastUpdate)}T10:00:00.000Z`,
    formality: { siren: c.siren, diffusionCommerciale, ...formality, content },
  };
}

/** Part `[from, to)` of the stock, a JSON array written a few hundred companies at a time. */
function* stockPart(ctx: DemoContext, companies: CompanyIndex, from: number, to: number, counted: () => void): Generator<Buffer> {
  for (let start = from; start < to; start += COMPANIES_PER_CHUNK) {
    const records: string[] = [];
    for (let i = start; i < Math.min(to, start + COMPANIES_PER_CHUNK); i++) {
      records.push(JSON.stringify(rneCompany(ctx, companies, i)));
      counted();
    }
    yield Buffer.from(`${start === from ? '[' : ','}${records.join(',')}${start + COMPANIES_PER_CHUNK >= to ? ']' : ''}`);
  }
  if (from === to) yield Buffer.from('[]');
}

/**
 * The RNE stock: a zip of JSON files, each an array of 10,000 companies, every company of the
 * set in one of them. Each part is generated when the zip writes it (yazl writes its entries
 * one after the other), so that at most one part's chunk is in memory, whatever the scale.
 */
export async function writeRneStock(ctx: DemoContext, companies: CompanyIndex, path: string): Promise<{ rows: number; bytes: number }> {
  await mkdir(dirname(path), { recursive: true });
  const zip = new yazl.ZipFile();
  const out = createWriteStream(path);
  zip.outputStream.pipe(out);
  let rows = 0;
  const counted = () => {
    rows += 1;
  };
  let failed: ((err: Error) => void) | undefined;
  const failure = new Promise<never>((_, reject) => {
    failed = reject;
  });
  const parts = Math.max(1, Math.ceil(companies.count / COMPANIES_PER_FILE));
  for (let p = 0; p < parts; p++) {
    const from = p * COMPANIES_PER_FILE;
    const to = Math.min(companies.count, from + COMPANIES_PER_FILE);
    zip.addReadStreamLazy(`stock_rne_${String(p + 1).padStart(6, '0')}.json`, { mtime: ENTRY_DATE }, (cb) => {
      const stream = Readable.from(stockPart(ctx, companies, from, to, counted), { objectMode: false });
      // yazl listens to no error of the stream: a failure ends the writing here.
      stream.on('error', (err) => failed?.(err));
      cb(null, stream);
    });
  }
  zip.end();
  await Promise.race([once(out, 'close'), failure]);
  return { rows, bytes: out.bytesWritten };
}

/**
 * A first financial year closes at least this long after the company's creation (a company
 * created in the autumn closes its first accounts the next year, as French law allows).
 */
const FIRST_YEAR_MIN_DAYS = 90;

/**
 * The ratios export: for a share of the companies, 2 to 5 closed years; a few confidential.
 * Only years the company lived through: closed after its creation (its first year at least
 * three months long), and, for a company that ceased, not after its cessation.
 */
export async function writeRatios(ctx: DemoContext, companies: CompanyIndex, path: string): Promise<{ rows: number; bytes: number }> {
  await mkdir(dirname(path), { recursive: true });
  const file = createWriteStream(path);
  const gzip = createGzip();
  gzip.pipe(file);
  let rows = 0;
  let chunk: string[] = [`\uFEFF${RATIOS_HEADER}\n`];
  const thisYear = yearOfDay(ctx.today);
  for (let i = 0; i < companies.count; i++) {
    const rng = rngFor(ctx.seed, 'ratios', i);
    if (!rng.chance(ACCOUNTS_SHARE)) continue;
    const c = companies.company(i);
    if (c.individual) continue;
    const years = rng.int(2, 5);
    const confidential = rng.chance(0.06);
    const simplified = c.categorieEntreprise !== 'GE' && c.categorieEntreprise !== 'ETI';
    let ca = Math.round(rng.int(80, 20_000) * 1000 * (c.categorieEntreprise === 'ETI' ? 20 : c.categorieEntreprise === 'GE' ? 300 : 1));
    for (let y = thisYear - years; y < thisYear; y++) {
      const closing = parseIsoDay(`${y}-12-31`) as number;
      if (closing < c.creation + FIRST_YEAR_MIN_DAYS || (c.cessation !== null && closing > c.cessation)) continue;
      ca = Math.max(0, Math.round(ca * (1 + (rng.next() - 0.45) * 0.3)));
      const margin = Math.round(ca * (0.3 + rng.next() * 0.4));
      const ebe = Math.round(ca * (rng.next() * 0.15 - 0.02));
      const net = Math.round(ebe * (0.4 + rng.next() * 0.5));
      chunk.push(`${c.siren};${y}-12-31;${ca};${margin};${ebe};${Math.round(ebe * 0.8)};${net};;;;;;;;;;;;;;;${simplified ? 'S' : 'C'};${confidential ? 'Confidentiel' : 'Public'}\n`);
      rows += 1;
    }
    if (chunk.length >= 5000) {
      if (!gzip.write(chunk.join(''))) await once(gzip, 'drain');
      chunk = [];
    }
  }
  gzip.end(chunk.join(''));
  await once(file, 'close');
  return { rows, bytes: file.bytesWritten };
}
