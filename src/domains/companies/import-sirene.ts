// SIRENE stock files (INSEE): StockUniteLegale and StockEtablissement, comma-separated CSV.
import type { Readable } from 'node:stream';
import type { Knex } from 'knex';
import { COMPANY_INDEX_COLUMNS, reindexCompanies, type CompanyIndexFields } from './search-index.js';
import { csvRecords } from '../../import/records.js';
import type { Importer, Mapped } from '../../import/importer.js';
import type { CompanyRow, EstablishmentRow } from './rows.js';
import { departementOfCommune, isoDate, isSiren, isSiret } from '../../import/fields.js';
import { insertIgnoring, rowsWhereIn, upsertRows } from '../../import/upsert.js';

type Csv = Record<string, string>;
const text = (v: string | undefined) => {
  const t = (v ?? '').trim();
  return t && t !== '[ND]' ? t : null;
};
// A NAF rév. 2 code: the nomenclature assumed when a file has no nomenclature column.
const NAF_REV2 = /^\d{2}\.\d{2}[A-Z]$/;
const nomenclatureOf = (given: string | undefined, code: string | null) => text(given) ?? (code && NAF_REV2.test(code) ? 'NAFRev2' : null);

/** How well an establishment speaks for its company while the unit is unknown: head office first, then open ones. */
const standing = (e: EstablishmentRow) => (e.siege ? 2 : 0) + (e.etat === 'A' ? 1 : 0);

/**
 * Gives a provisional `companies` row (`unit_known` false) to every SIREN of these
 * establishments that has no row, from its best establishment, so that searches find it
 * (issue 13); a provisional row is completed by a later batch's head office or open
 * establishment. The unit's import replaces the row whole (no version: any beats none).
 * Returns what the documents of these companies are made of, as the rows stand after it:
 * the documents are built from it without reading the companies again.
 */
async function provideUnknownUnits(trx: Knex.Transaction, establishments: readonly EstablishmentRow[], now: string): Promise<Map<string, CompanyIndexFields>> {
  const best = new Map<string, EstablishmentRow>();
  for (const e of establishments) {
    const current = best.get(e.siren);
    if (!current || standing(e) > standing(current)) best.set(e.siren, e);
  }
  const sirens = [...best.keys()];
  type Stored = CompanyIndexFields & { etat: string; nic_siege: string | null };
  const stored = new Map((await rowsWhereIn<Stored>(trx, 'companies', 'siren', sirens, [...COMPANY_INDEX_COLUMNS, 'etat', 'nic_siege'])).map((r) => [r.siren, r]));
  const indexed = new Map<string, CompanyIndexFields>();
  const activity = (e: EstablishmentRow) => ({
    activite_principale: e.activite_principale,
    nomenclature_activite: e.nomenclature_activite,
    activite_principale_naf25: e.activite_principale_naf25,
  });
  const provisional: Record<string, unknown>[] = [];
  for (const [siren, e] of best) {
    const s = stored.get(siren);
    if (!s) {
      provisional.push({
        siren,
        ...activity(e),
        etat: e.etat === 'A' ? 'A' : 'C',
        nic_siege: e.siege ? e.nic : null,
        unit_known: false,
        source_updated: null,
        ingested_at: now,
        updated_at: now,
      });
      indexed.set(siren, { siren, denomination: null, sigle: null, nom_personne: null, denomination_usuelle: null, ...activity(e), unit_known: false });
      continue;
    }
    indexed.set(siren, s);
    if (s.unit_known) continue;
    const newHead = e.siege && s.nic_siege !== e.nic;
    const nowOpen = e.etat === 'A' && s.etat !== 'A';
    if (!newHead && !nowOpen) continue;
    const newActivity = newHead || s.nic_siege === null ? activity(e) : {};
    await trx('companies')
      .where({ siren, unit_known: false })
      .update({ ...newActivity, etat: nowOpen ? 'A' : s.etat, nic_siege: e.siege ? e.nic : s.nic_siege, updated_at: now });
    indexed.set(siren, { ...s, ...newActivity });
  }
  // Within the import's write lock: no other writer adds a row meanwhile, each is inserted.
  await insertIgnoring(trx, 'companies', 'siren', provisional);
  return indexed;
}

/** The SIRENs of these units whose row is provisional: one look in the partial index of the provisional rows (usually empty). */
async function provisionalAmong(trx: Knex.Transaction, rows: readonly CompanyRow[]): Promise<Set<string>> {
  if (!rows.length) return new Set();
  let low = (rows[0] as CompanyRow).siren;
  let high = low;
  for (const r of rows) {
    if (r.siren < low) low = r.siren;
    if (r.siren > high) high = r.siren;
  }
  const found = (await trx('companies').whereRaw('unit_known = false').whereBetween('siren', [low, high]).pluck('siren')) as string[];
  const wanted = new Set(rows.map((r) => r.siren));
  return new Set(found.filter((s) => wanted.has(s)));
}

export const sireneUnites: Importer<Csv, CompanyRow> = {
  name: 'sirene-unites',
  input: { unit: 'ligne', layouts: null },
  read: (stream: Readable) => csvRecords(stream, ','),
  sortKey: (row) => row.siren,
  map(r, now): Mapped<CompanyRow> {
    const siren = r.siren?.trim();
    if (!isSiren(siren)) return { skip: `SIREN absent ou invalide (${r.siren ?? ''})` };
    const created = isoDate(r.dateCreationUniteLegale);
    if (created === null) return { skip: `date de création illisible (${r.dateCreationUniteLegale})` };
    const etat = (r.etatAdministratifUniteLegale ?? '').trim();
    if (etat !== 'A' && etat !== 'C') return { skip: `état administratif inconnu (${etat})` };
    const prenom = text(r.prenomUsuelUniteLegale) ?? text(r.prenom1UniteLegale);
    const nom = text(r.nomUsageUniteLegale) ?? text(r.nomUniteLegale);
    const activite = text(r.activitePrincipaleUniteLegale);
    return {
      row: {
        siren,
        denomination: text(r.denominationUniteLegale),
        sigle: text(r.sigleUniteLegale),
        nom_personne: nom ? [prenom, nom].filter(Boolean).join(' ') : null,
        denomination_usuelle: text(r.denominationUsuelle1UniteLegale),
        categorie_juridique: text(r.categorieJuridiqueUniteLegale),
        activite_principale: activite,
        nomenclature_activite: nomenclatureOf(r.nomenclatureActivitePrincipaleUniteLegale, activite),
        // Only in the current layout (read by header name: absent in the older one).
        activite_principale_naf25: text(r.activitePrincipaleNAF25UniteLegale),
        tranche_effectifs: text(r.trancheEffectifsUniteLegale) === 'NN' ? null : text(r.trancheEffectifsUniteLegale),
        categorie_entreprise: text(r.categorieEntreprise),
        date_creation: created ?? null,
        etat,
        nic_siege: text(r.nicSiegeUniteLegale),
        unit_known: true,
        source_updated: text(r.dateDernierTraitementUniteLegale),
        ingested_at: now,
        updated_at: now,
      },
    };
  },
  async write(trx: Knex.Transaction, rows) {
    const provisional = await provisionalAmong(trx, rows);
    const { applied, ...counts } = await upsertRows(trx, 'companies', 'siren', rows, { keepOnUpdate: ['ingested_at'], versionColumn: 'source_updated' });
    // A unit replacing the provisional row of its establishments is a new unit, said as added.
    const completed = applied.filter((r) => provisional.has(r.siren)).length;
    counts.inserted += completed;
    counts.updated -= completed;
    // The documents of the companies written, from the rows in hand (a row kept out changed nothing).
    const written = new Map(applied.map((r) => [r.siren, r]));
    await reindexCompanies(trx, [...written.keys()], written);
    return counts;
  },
};


export const sireneEtablissements: Importer<Csv, EstablishmentRow> = {
  name: 'sirene-etablissements',
  input: { unit: 'ligne', layouts: null },
  read: (stream: Readable) => csvRecords(stream, ','),
  sortKey: (row) => row.siret,
  map(r, now): Mapped<EstablishmentRow> {
    const siret = r.siret?.trim();
    if (!isSiret(siret)) return { skip: `SIRET absent ou invalide (${r.siret ?? ''})` };
    const created = isoDate(r.dateCreationEtablissement);
    if (created === null) return { skip: `date de création illisible (${r.dateCreationEtablissement})` };
    const etat = (r.etatAdministratifEtablissement ?? '').trim();
    if (etat !== 'A' && etat !== 'F') return { skip: `état administratif inconnu (${etat})` };
    const street = [text(r.numeroVoieEtablissement), text(r.indiceRepetitionEtablissement), text(r.typeVoieEtablissement), text(r.libelleVoieEtablissement)]
      .filter(Boolean)
      .join(' ');
    const adresse = [text(r.complementAdresseEtablissement), street].filter(Boolean).join(', ') || null;
    const codeCommune = text(r.codeCommuneEtablissement);
    const activite = text(r.activitePrincipaleEtablissement);
    return {
      row: {
        siret,
        siren: siret.slice(0, 9),
        nic: siret.slice(9),
        siege: (r.etablissementSiege ?? '').trim().toLowerCase() === 'true',
        etat,
        date_creation: created ?? null,
        activite_principale: activite,
        nomenclature_activite: nomenclatureOf(r.nomenclatureActivitePrincipaleEtablissement, activite),
        activite_principale_naf25: text(r.activitePrincipaleNAF25Etablissement),
        enseigne: text(r.enseigne1Etablissement) ?? text(r.denominationUsuelleEtablissement),
        adresse,
        code_postal: text(r.codePostalEtablissement),
        commune: text(r.libelleCommuneEtablissement),
        code_commune: codeCommune,
        departement: departementOfCommune(codeCommune),
        source_updated: text(r.dateDernierTraitementEtablissement),
        ingested_at: now,
        updated_at: now,
      },
    };
  },
  async write(trx, rows, now) {
    const { applied, ...counts } = await upsertRows(trx, 'establishments', 'siret', rows, { keepOnUpdate: ['ingested_at'], versionColumn: 'source_updated' });
    // The companies as they stand after it, read once for both (1.2 s of statements per read for
    // the national set's 309,810 establishments at factor 0.02).
    const companies = await provideUnknownUnits(trx, applied, now);
    await reindexCompanies(trx, applied.map((r) => r.siren), companies);
    return counts;
  },
};
