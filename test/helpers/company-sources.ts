// Files of the company sources in their published formats (RNE formalities, ratios BCE/INPI
// CSV, BODACC and DECP answers), and one company with all of them imported through the real
// importers, for the tests that show a company in full (permalink page, results card).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { importFile } from '../../src/import/run.js';
import { IMPORTERS } from '../../src/domains/importers.js';
import type { Database } from '../../src/platform/db/database.js';

/**
 * An RNE company written from the INPI's published documentation of the format (no real file
 * is published: SOURCES.md): an officer's full date of birth and home address are present, as
 * in the register, to check that neither comes out.
 */
export function rneCompany(siren: string, updatedAt: string, pouvoirs: unknown[], extra: Record<string, unknown> = {}, capital: unknown = 15000): Record<string, unknown> {
  return {
    id: `id-${siren}-${updatedAt}`,
    siren,
    updatedAt,
    formality: {
      siren,
      diffusionCommerciale: true,
      ...extra,
      content: {
        personneMorale: {
          identite: { entreprise: { siren, denomination: `Société ${siren}`, formeJuridique: '5499' }, description: { montantCapital: capital, deviseCapital: 'EUR', capitalVariable: false } },
          adresseEntreprise: { adresse: { numVoie: '12', voie: 'DE BREST', codePostal: '29800', commune: 'LANDERNEAU' } },
          composition: { pouvoirs },
        },
      },
    },
  };
}

/** An individual officer (RNE `pouvoirs` element), with the full birth date and home address the register holds. */
export const rnePerson = (nom: string, prenoms: string[], role: string, born: string) => ({
  typeDePersonne: 'INDIVIDU',
  roleEntreprise: role,
  individu: { descriptionPersonne: { nom, prenoms, dateDeNaissance: born }, adresseDomicile: { numVoie: '7', voie: 'IMPASSE DES MOUETTES', codePostal: '29217', commune: 'PLOUGONVELIN' } },
});

/** A company officer (RNE `pouvoirs` element). */
export const rneCompanyOfficer = (siren: string, denomination: string, role: string) => ({ typeDePersonne: 'ENTREPRISE', roleEntreprise: role, entreprise: { siren, denomination } });

const RATIOS_HEADER =
  'siren;date_cloture_exercice;chiffre_d_affaires;marge_brute;ebe;ebit;resultat_net;taux_d_endettement;ratio_de_liquidite;ratio_de_vetuste;autonomie_financiere;poids_bfr_exploitation_sur_ca;couverture_des_interets;caf_sur_ca;capacite_de_remboursement;marge_ebe;resultat_courant_avant_impots_sur_ca;poids_bfr_exploitation_sur_ca_jours;rotation_des_stocks_jours;credit_clients_jours;credit_fournisseurs_jours;type_bilan;confidentiality';

/** The ratios BCE/INPI CSV export (UTF-8 BOM, `;`): one row per company and closing date. */
export function ratiosCsv(rows: { siren: string; cloture: string; ca: string; resultat: string; confidentiel?: boolean }[]): string {
  return `\uFEFF${RATIOS_HEADER}\n${rows.map((r) => `${r.siren};${r.cloture};${r.ca};;;;${r.resultat};;;;;;;;;;;;;;;S;${r.confidentiel ? 'Confidentiel' : 'Public'}`).join('\n')}\n`;
}

/** A BODACC announcement (Opendatasoft record) of the Brest registry: the fields every kind shares, then `fields`. */
export function bodaccRecord(id: string, fields: Record<string, unknown>): Record<string, unknown> {
  return {
    id,
    publicationavis: id[0],
    parution: id.slice(1, 9),
    numeroannonce: Number(id.slice(9)),
    typeavis: 'annonce',
    typeavis_lib: 'Avis initial',
    numerodepartement: '29',
    departement_nom_officiel: 'Finistère',
    region_code: 53,
    region_nom_officiel: 'Bretagne',
    tribunal: 'Greffe du Tribunal de Commerce de Brest',
    ville: 'Landerneau',
    cp: '29800',
    listeetablissements: null,
    jugement: null,
    acte: null,
    modificationsgenerales: null,
    radiationaurcs: null,
    depot: null,
    url_complete: `https://www.bodacc.fr/pages/annonces-commerciales-detail/?q.id=id:${id}`,
    ...fields,
  };
}

/** A BODACC collective-proceeding announcement (Opendatasoft record) about a company. */
export function bodaccProceeding(id: string, o: { siren: string; denomination: string; dateparution: string; nature: string; date: string }): Record<string, unknown> {
  const spaced = `${o.siren.slice(0, 3)} ${o.siren.slice(3, 6)} ${o.siren.slice(6)}`;
  return bodaccRecord(id, {
    dateparution: o.dateparution,
    familleavis: 'collective',
    familleavis_lib: 'Procédures collectives',
    commercant: o.denomination,
    registre: [spaced, o.siren],
    listepersonnes: JSON.stringify({
      personne: { typePersonne: 'pm', numeroImmatriculation: { numeroIdentification: spaced, codeRCS: 'RCS', nomGreffeImmat: 'Brest' }, denomination: o.denomination, formeJuridique: 'Société à responsabilité limitée' },
    }),
    jugement: JSON.stringify({ type: 'initial', famille: "Jugement d'ouverture", nature: o.nature, date: o.date }),
  });
}

/** A DECP award (consolidated JSON, `marches` element) won by the given SIRETs. */
export function decpAward(id: string, o: { objet: string; montant: number; date: string; winners: { siret: string; denomination: string }[] }): Record<string, unknown> {
  return {
    id,
    acheteur: { id: '21290232000014', nom: 'Commune de Quimper' },
    nature: 'Marché',
    objet: o.objet,
    codeCPV: '45261000',
    procedure: 'Procédure adaptée',
    lieuExecution: { code: '29', typeCode: 'Code département' },
    dureeMois: 6,
    dateNotification: o.date,
    montant: o.montant,
    titulaires: o.winners.map((w) => ({ typeIdentifiant: 'SIRET', id: w.siret, denominationSociale: w.denomination })),
  };
}

/** The company shown in full: its name has markup characters, to check escaping. */
export const FULL_COMPANY = {
  siren: '184200012',
  siret: '18420001200013',
  name: 'Charpentes <du> Léon & fils',
  officerCompany: { siren: '184200020', name: 'JPL <LACOSTE>' },
  award: { id: 'L-2024-07', objet: 'Réfection de la toiture <école> Jules Ferry', montant: 84500, date: '2024-07-15' },
  proceeding: { id: 'A202600471001', dateparution: '2026-03-10', nature: "Jugement d'ouverture d'une procédure de redressement judiciaire", date: '2026-03-03' },
} as const;

/**
 * Imports FULL_COMPANY with every source: SIRENE (unit and establishment), RGE, RNE (an
 * individual born 1970-04-17 and a company officer; capital 37 000 €), four ratios years
 * (2022, 2023 with a negative net result, 2024, 2025 confidential), one DECP award and one
 * BODACC proceeding.
 */
export async function importFullCompany(db: Database): Promise<void> {
  const c = FULL_COMPANY;
  const dir = mkdtempSync(join(tmpdir(), 'company-full-'));
  const silent = () => ({ update: () => undefined, stop: () => undefined });
  const units = `siren,dateCreationUniteLegale,trancheEffectifsUniteLegale,dateDernierTraitementUniteLegale,etatAdministratifUniteLegale,nomUniteLegale,prenom1UniteLegale,denominationUniteLegale,denominationUsuelle1UniteLegale,categorieJuridiqueUniteLegale,activitePrincipaleUniteLegale,nicSiegeUniteLegale,categorieEntreprise
${c.siren},2015-03-02,11,2026-01-10,A,,,"${c.name}",Toitures du Léon,5499,43.91B,00013,PME
${c.officerCompany.siren},1984-01-01,01,2026-01-10,A,,,"${c.officerCompany.name}",,5499,43.91B,00018,PME
`;
  const establishments = `siren,nic,siret,etablissementSiege,etatAdministratifEtablissement,dateCreationEtablissement,activitePrincipaleEtablissement,numeroVoieEtablissement,typeVoieEtablissement,libelleVoieEtablissement,codePostalEtablissement,libelleCommuneEtablissement,codeCommuneEtablissement,dateDernierTraitementEtablissement,enseigne1Etablissement
${c.siren},00013,${c.siret},true,A,2015-03-02,43.91B,12,RUE,DE BREST,29800,LANDERNEAU,29103,2026-01-10,
`;
  const rge = `nom_entreprise,siret,adresse,code_postal,commune,latitude,longitude,telephone,email,site_internet,organisme,domaine,meta_domaine,code_qualification,nom_qualification,lien_date_debut,lien_date_fin,particulier
CHARPENTES DU LEON,${c.siret},12 rue de Brest,29800,Landerneau,,,02 98 00 00 02,leon@charpentes.bzh,https://charpentes.bzh,Qualibat,Couverture et zinguerie,Enveloppe,2,Q,2024-01-01,2099-12-31,Oui
`;
  const rne = [
    rneCompany(
      c.siren,
      '2024-06-01T09:00:00Z',
      [rnePerson('KERDRAON', ['Yannick', '<Marie>'], '30', '1970-04-17'), rneCompanyOfficer(c.officerCompany.siren, c.officerCompany.name, '71')],
      {},
      37000,
    ),
  ];
  const ratios = ratiosCsv([
    { siren: c.siren, cloture: '2022-12-31', ca: '950000', resultat: '42000' },
    { siren: c.siren, cloture: '2023-12-31', ca: '1200000', resultat: '-85000' },
    { siren: c.siren, cloture: '2024-12-31', ca: '1500000', resultat: '95000' },
    { siren: c.siren, cloture: '2025-12-31', ca: '1700000', resultat: '1', confidentiel: true },
  ]);
  const decp = { marches: [decpAward(c.award.id, { objet: c.award.objet, montant: c.award.montant, date: c.award.date, winners: [{ siret: c.siret, denomination: 'CHARPENTES DU LEON' }] })] };
  const bodacc = [bodaccProceeding(c.proceeding.id, { siren: c.siren, denomination: c.name, dateparution: c.proceeding.dateparution, nature: c.proceeding.nature, date: c.proceeding.date })];
  try {
    for (const [source, name, content] of [
      ['sirene-unites', 'ul.csv', units],
      ['sirene-etablissements', 'etab.csv', establishments],
      ['rge', 'rge.csv', rge],
      ['rne', 'rne.json', JSON.stringify(rne)],
      ['ratios', 'ratios.csv', ratios],
      ['decp', 'decp.json', JSON.stringify(decp)],
      ['bodacc', 'bodacc.json', JSON.stringify({ total_count: bodacc.length, results: bodacc })],
    ] as const) {
      writeFileSync(join(dir, name), content);
      const report = await importFile(db, IMPORTERS[source] as never, join(dir, name), { progress: silent });
      if (report.skipped) throw new Error(`${source} : ${report.skipped} ligne(s) écartée(s) ${JSON.stringify(report.problems)}`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
