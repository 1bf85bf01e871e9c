// Public data the analyses tests read: DECP awards over several years, CPV groups and
// departments, one company known to SIRENE with RGE certifications (one in force, one
// expired), imported by the real importers.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { importFile } from '../../../src/import/run.js';
import { IMPORTERS } from '../../../src/domains/importers.js';
import type { Database } from '../../../src/platform/db/database.js';

export const QUIMPER = '21290232000014';
export const FINISTERE = '22290001700012';
export const LEON = '732829320';
export const ARMOR = '383474814';

const award = (id: string, o: { montant: number; date: string; cpv: string; dep: string; winners: string[]; buyer?: string }) => ({
  id,
  acheteur: { id: o.buyer ?? QUIMPER, nom: (o.buyer ?? QUIMPER) === QUIMPER ? 'Commune de Quimper' : 'Département du Finistère' },
  nature: 'Marché',
  objet: `Travaux ${id}`,
  codeCPV: o.cpv,
  procedure: 'Procédure adaptée',
  lieuExecution: { code: o.dep, typeCode: 'Code département' },
  dureeMois: 6,
  dateNotification: o.date,
  montant: o.montant,
  titulaires: o.winners.map((siret) => ({ typeIdentifiant: 'SIRET', id: siret, denominationSociale: siret.startsWith(LEON) ? 'CHARPENTES DU LEON' : 'ELECTRICITE ARMORICAINE' })),
});

const L1 = `${LEON}00018`;
const L2 = `${LEON}00026`;
const A1 = `${ARMOR}00021`;

/** Léon wins L-2021, L-2023a, L-2024a (452, 29), L-2025 (453, 35, with Armor); others win in 452/29 too. */
export const DECP = {
  marches: [
    award('L-2021', { montant: 20000, date: '2021-04-01', cpv: '45261000', dep: '29', winners: [L1] }),
    award('L-2023a', { montant: 100000, date: '2023-06-10', cpv: '45262000', dep: '29', winners: [L1] }),
    award('L-2024a', { montant: 50000, date: '2024-02-15', cpv: '45261000', dep: '29', winners: [L2] }),
    award('L-2025', { montant: 30000, date: '2025-09-01', cpv: '45310000', dep: '35', winners: [L1, A1], buyer: FINISTERE }),
    award('O-2024a', { montant: 70000, date: '2024-03-01', cpv: '45261000', dep: '29', winners: [A1] }),
    award('O-2024b', { montant: 10000, date: '2024-05-01', cpv: '45210000', dep: '29', winners: [A1], buyer: FINISTERE }),
    award('O-2022', { montant: 45000, date: '2022-05-01', cpv: '45450000', dep: '56', winners: [A1] }),
    award('O-2025', { montant: 250000, date: '2025-01-20', cpv: '45450000', dep: '56', winners: [A1] }),
    award('O-2026', { montant: 5000, date: '2026-01-20', cpv: '45450000', dep: '56', winners: [A1] }),
  ],
};

const UNITS = `siren,dateCreationUniteLegale,trancheEffectifsUniteLegale,dateDernierTraitementUniteLegale,etatAdministratifUniteLegale,nomUniteLegale,prenom1UniteLegale,denominationUniteLegale,denominationUsuelle1UniteLegale,categorieJuridiqueUniteLegale,activitePrincipaleUniteLegale,nicSiegeUniteLegale,categorieEntreprise
${LEON},2015-03-02,11,2026-01-10,A,,,Charpentes du Léon,,5499,43.91B,00018,PME
`;
const ESTABLISHMENTS = `siren,nic,siret,etablissementSiege,etatAdministratifEtablissement,dateCreationEtablissement,activitePrincipaleEtablissement,numeroVoieEtablissement,typeVoieEtablissement,libelleVoieEtablissement,codePostalEtablissement,libelleCommuneEtablissement,codeCommuneEtablissement,dateDernierTraitementEtablissement,enseigne1Etablissement
${LEON},00018,${L1},true,A,2015-03-02,43.91B,12,RUE,DE BREST,29800,LANDERNEAU,29103,2026-01-10,
${LEON},00026,${L2},false,A,2020-01-01,43.91B,3,RUE,DU PORT,29200,BREST,29019,2026-01-10,Toitures Brestoises
`;
const RGE = `nom_entreprise,siret,adresse,code_postal,commune,latitude,longitude,telephone,email,site_internet,organisme,domaine,meta_domaine,code_qualification,nom_qualification,lien_date_debut,lien_date_fin,particulier
TOITURES BRESTOISES,${L2},3 rue du Port,29200,Brest,,,02 98 00 00 01,contact@toitures.bzh,https://www.toitures.bzh,Qualibat,Isolation des combles perdus,Isolation,1,Q,2024-01-01,2099-12-31,Oui
CHARPENTES DU LEON,${L1},12 rue de Brest,29800,Landerneau,,,02 98 00 00 02,leon@charpentes.bzh,https://charpentes.bzh,Qualibat,Couverture et zinguerie,Enveloppe,2,Q,2020-01-01,2021-12-31,Oui
`;

export async function importAnalysesData(db: Database): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'analyses-'));
  const silent = () => ({ update: () => undefined, stop: () => undefined });
  try {
    for (const [source, name, content] of [
      ['sirene-unites', 'ul.csv', UNITS],
      ['sirene-etablissements', 'etab.csv', ESTABLISHMENTS],
      ['rge', 'rge.csv', RGE],
      ['decp', 'decp.json', JSON.stringify(DECP)],
    ] as const) {
      writeFileSync(join(dir, name), content);
      await importFile(db, IMPORTERS[source] as never, join(dir, name), { progress: silent });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
