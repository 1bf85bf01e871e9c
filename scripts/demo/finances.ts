// The register's companies (RNE stock: a zip of JSON files, each an array of companies, with
// the officers' full date of birth and home address as the register holds them, which the
// importer must drop) and their published accounts (ratios BCE/INPI CSV export: `;`, UTF-8
// BOM, gzipped), for a share of the demo companies.
import { createWriteStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { createGzip } from 'node:zlib';
import { once } from 'node:events';
import yazl from 'yazl';
import type { CompanyIndex, DemoContext } from './companies.js';
import { familyName, firstName } from './names.js';
import { rngFor } from './prng.js';
import { isoDay, yearOfDay } from './util.js';

/** Shares of the companies (not individual entrepreneurs) in the register file and with accounts. */
const RNE_SHARE = 0.5;
const ACCOUNTS_SHARE = 0.6;
/** Companies per JSON file of the stock, as the INPI cuts its stock into many files. */
const COMPANIES_PER_FILE = 10_000;

const RATIOS_HEADER =
  'siren;date_cloture_exercice;chiffre_d_affaires;marge_brute;ebe;ebit;resultat_net;taux_d_endettement;ratio_de_liquidite;ratio_de_vetuste;autonomie_financiere;poids_bfr_exploitation_sur_ca;couverture_des_interets;caf_sur_ca;capacite_de_remboursement;marge_ebe;resultat_courant_avant_impots_sur_ca;poids_bfr_exploitation_sur_ca_jours;rotation_des_stocks_jours;credit_clients_jours;credit_fournisseurs_jours;type_bilan;confidentiality';

const ROLES_SARL = ['30', '30', '30', '29'];
const ROLES_SAS = ['73', '73', '53', '70', '65'];

function rneCompany(ctx: DemoContext, companies: CompanyIndex, i: number): Record<string, unknown> | null {
  const c = companies.company(i);
  if (c.individual) return null;
  const rng = rngFor(ctx.seed, 'rne', i);
  if (!rng.chance(RNE_SHARE)) return null;
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
    const born = `${rng.int(1945, 1998)}-${String(rng.int(1, 12)).padStart(2, '0')}-${String(rng.int(1, 28)).padStart(2, '0')}`;
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
  return {
    id: `rne-${c.siren}`,
    siren: c.siren,
    updatedAt: `${isoDay(c.lastUpdate)}T10:00:00.000Z`,
    formality: {
      siren: c.siren,
      diffusionCommerciale: !rng.chance(0.03),
      formeJuridique: sas ? '5710' : '5499',
      content: {
        personneMorale: {
          identite: { entreprise: { siren: c.siren, denomination: c.officialName, formeJuridique: sas ? '5710' : '5499' }, description: { montantCapital: capital, deviseCapital: 'EUR', capitalVariable: false } },
          composition: { pouvoirs },
        },
      },
    },
  };
}

/** The RNE stock: a zip of JSON files, each an array of companies. */
export async function writeRneStock(ctx: DemoContext, companies: CompanyIndex, path: string): Promise<{ rows: number; bytes: number }> {
  await mkdir(dirname(path), { recursive: true });
  const zip = new yazl.ZipFile();
  const out = createWriteStream(path);
  zip.outputStream.pipe(out);
  let rows = 0;
  let part: string[] = [];
  let files = 0;
  const addPart = () => {
    files += 1;
    // A fixed date: the same seed writes the same bytes.
    zip.addBuffer(Buffer.from(`[${part.join(',')}]`), `stock_rne_${String(files).padStart(6, '0')}.json`, { mtime: new Date('2026-01-01T00:00:00Z') });
    part = [];
  };
  for (let i = 0; i < companies.count; i++) {
    const record = rneCompany(ctx, companies, i);
    if (!record) continue;
    part.push(JSON.stringify(record));
    rows += 1;
    if (part.length >= COMPANIES_PER_FILE) addPart();
  }
  if (part.length || !files) addPart();
  zip.end();
  await once(out, 'close');
  return { rows, bytes: out.bytesWritten };
}

/** The ratios export: for a share of the companies, 2 to 5 closed years; a few confidential. */
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
