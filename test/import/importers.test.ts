// Importers read the real published formats (plain, gzip, zip), skip and report bad records with their place and reason, are idempotent, never let an older version replace a newer one, and never store contact details.
import { createWriteStream, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { expect } from 'chai';
import yazl from 'yazl';
import type { Database } from '../../src/platform/db/database.js';
import { ImportInputError } from '../../src/import/input.js';
import { importFile } from '../../src/import/run.js';
import { AWARDS_SEARCH } from '../../src/domains/awards/search-index.js';
import { COMPANIES_SEARCH } from '../../src/domains/companies/search-index.js';
import { NOTICES_SEARCH } from '../../src/domains/notices/search-index.js';
import { searchKeys } from '../../src/platform/search/full-text.js';
import { parseQuery } from '../../src/platform/search/query-syntax.js';
import { IMPORTERS } from '../../src/domains/importers.js';
import { openMigratedDatabase, type MigratedDatabase } from '../helpers/service.js';

const silent = () => ({ update: () => undefined, stop: () => undefined });

const UL_HEADER =
  'siren,statutDiffusionUniteLegale,unitePurgeeUniteLegale,dateCreationUniteLegale,sigleUniteLegale,sexeUniteLegale,prenom1UniteLegale,prenom2UniteLegale,prenom3UniteLegale,prenom4UniteLegale,prenomUsuelUniteLegale,pseudonymeUniteLegale,identifiantAssociationUniteLegale,trancheEffectifsUniteLegale,anneeEffectifsUniteLegale,dateDernierTraitementUniteLegale,nombrePeriodesUniteLegale,categorieEntreprise,anneeCategorieEntreprise,dateDebut,etatAdministratifUniteLegale,nomUniteLegale,nomUsageUniteLegale,denominationUniteLegale,denominationUsuelle1UniteLegale,denominationUsuelle2UniteLegale,denominationUsuelle3UniteLegale,categorieJuridiqueUniteLegale,activitePrincipaleUniteLegale,nomenclatureActivitePrincipaleUniteLegale,nicSiegeUniteLegale,economieSocialeSolidaireUniteLegale,societeMissionUniteLegale,caractereEmployeurUniteLegale';

function unite(siren: string, denomination: string, updated: string, extra: Partial<{ created: string; etat: string; naf: string }> = {}): string {
  const cols = UL_HEADER.split(',').map(() => '');
  const set = (name: string, value: string) => (cols[UL_HEADER.split(',').indexOf(name)] = value);
  set('siren', siren);
  set('statutDiffusionUniteLegale', 'O');
  set('dateCreationUniteLegale', extra.created ?? '2015-03-02');
  set('trancheEffectifsUniteLegale', '11');
  set('dateDernierTraitementUniteLegale', updated);
  set('etatAdministratifUniteLegale', extra.etat ?? 'A');
  set('denominationUniteLegale', denomination);
  set('categorieJuridiqueUniteLegale', '5499');
  set('activitePrincipaleUniteLegale', extra.naf ?? '43.91B');
  set('nomenclatureActivitePrincipaleUniteLegale', 'NAFRev2');
  set('nicSiegeUniteLegale', '00018');
  return cols.map((c) => (/[",\n]/.test(c) ? `"${c.replace(/"/g, '""')}"` : c)).join(',');
}

// Every test twice: records read in the import's thread (small files) and in a reading thread of their own (large files).
for (const readIn of ['thread', 'worker'] as const)
describe(`importers (${readIn === 'worker' ? 'read in a thread of their own' : "read in the import's thread"})`, function () {
  this.timeout(30000);
  let database: MigratedDatabase;
  let db: Database;
  let dir: string;
  const file = (name: string, content: string | Buffer) => {
    const path = join(dir, name);
    writeFileSync(path, content);
    return path;
  };
  const run = (source: string, path: string) => importFile(db, IMPORTERS[source] as never, path, { progress: silent, batchSize: 3, readIn });

  before(async () => {
    database = await openMigratedDatabase();
    db = database.db;
    dir = mkdtempSync(join(tmpdir(), 'import-test-'));
  });
  after(async () => {
    await database.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('imports SIRENE units, skipping bad rows with their line and reason, in batches', async () => {
    const csv = [
      UL_HEADER,
      unite('732829320', 'Charpentes du Léon, SARL', '2026-01-10T10:00:00'),
      unite('12345', 'SIREN trop court', '2026-01-10T10:00:00'),
      unite('552100554', 'Date fausse', '2026-01-10T10:00:00', { created: '2020-13-45' }),
      '552032534,O,trop,peu,de,colonnes',
      unite('419223004', 'Couverture "Le Goff"', '2026-01-10T10:00:00', { etat: 'C' }),
      unite('383474814', 'Électricité Armoricaine', '2026-01-10T10:00:00'),
      unite('444444444', 'État inconnu', '2026-01-10T10:00:00', { etat: 'X' }),
    ].join('\n');
    const report = await run('sirene-unites', file('StockUniteLegale_utf8.csv', csv));
    expect(report).to.include({ read: 7, inserted: 3, updated: 0, skipped: 4 });
    expect(report.problems.map((p) => p.position)).to.deep.equal([3, 4, 5, 8]);
    expect(report.problems[0]?.reason).to.match(/SIREN/);
    expect(report.problems[1]?.reason).to.match(/date de création/);
    expect(report.problems[2]?.reason).to.match(/nombre de colonnes incorrect/);
    const row = await db('companies').where({ siren: '732829320' }).first();
    expect(row).to.include({ denomination: 'Charpentes du Léon, SARL', activite_principale: '43.91B', etat: 'A', tranche_effectifs: '11' });
    expect((await db('companies').where({ siren: '419223004' }).first()).denomination).to.equal('Couverture "Le Goff"');
  });

  it('is idempotent, and lets a newer version replace an older one but never the reverse', async () => {
    const first = await db('companies').where({ siren: '732829320' }).first('ingested_at');
    const same = [UL_HEADER, unite('732829320', 'Charpentes du Léon, SARL', '2026-01-10T10:00:00')].join('\n');
    const again = await run('sirene-unites', file('again.csv', same));
    expect(again).to.include({ read: 1, inserted: 0, updated: 1 });
    expect(Number((await db('companies').count<{ n: number | string }[]>('* as n'))[0]?.n)).to.equal(3);
    const newer = [UL_HEADER, unite('732829320', 'Charpentes du Léon', '2026-06-01T08:00:00')].join('\n');
    await run('sirene-unites', file('newer.csv', newer));
    expect((await db('companies').where({ siren: '732829320' }).first()).denomination).to.equal('Charpentes du Léon');
    const older = [UL_HEADER, unite('732829320', 'Ancien nom', '2025-01-01T08:00:00')].join('\n');
    await run('sirene-unites', file('older.csv', older));
    const now = await db('companies').where({ siren: '732829320' }).first();
    expect(now.denomination).to.equal('Charpentes du Léon');
    // When the record entered the service does not move on a replacement.
    expect(now.ingested_at).to.equal(first.ingested_at);
  });

  it('reads gzip and zip files', async () => {
    const header = 'siren,nic,siret,etablissementSiege,etatAdministratifEtablissement,dateCreationEtablissement,activitePrincipaleEtablissement,numeroVoieEtablissement,typeVoieEtablissement,libelleVoieEtablissement,codePostalEtablissement,libelleCommuneEtablissement,codeCommuneEtablissement,dateDernierTraitementEtablissement,enseigne1Etablissement';
    const csv = [header, '732829320,00018,73282932000018,true,A,2015-03-02,43.91B,12,RUE,DE BREST,29800,LANDERNEAU,29103,2026-01-10T10:00:00,', '383474814,00021,38347481400021,false,A,2019-05-06,43.21A,3,AV,JEAN JAURES,20000,AJACCIO,2A004,2026-01-10T10:00:00,Élec Corse'].join('\n');
    const gz = await run('sirene-etablissements', file('StockEtablissement_utf8.csv.gz', gzipSync(Buffer.from(csv))));
    expect(gz).to.include({ read: 2, inserted: 2, skipped: 0 });
    const landerneau = await db('establishments').where({ siret: '73282932000018' }).first();
    expect(landerneau).to.include({ siren: '732829320', departement: '29', code_postal: '29800', commune: 'LANDERNEAU' });
    expect(Boolean(landerneau.siege)).to.equal(true);
    expect((await db('establishments').where({ siret: '38347481400021' }).first()).departement).to.equal('2A');

    const zipPath = join(dir, 'etab.zip');
    await new Promise<void>((resolve) => {
      const zip = new yazl.ZipFile();
      zip.addBuffer(Buffer.from('ceci n’est pas le fichier'), 'LISEZMOI.md');
      zip.addBuffer(Buffer.from(csv), 'StockEtablissement_utf8.csv');
      zip.end();
      zip.outputStream.pipe(createWriteStream(zipPath)).on('close', () => resolve());
    });
    const zipped = await run('sirene-etablissements', zipPath);
    expect(zipped).to.include({ read: 2, inserted: 0, updated: 2 });
  });

  it('never stores the contact columns of the RGE list', async () => {
    const csv = [
      'nom_entreprise,siret,adresse,code_postal,commune,latitude,longitude,telephone,email,site_internet,organisme,domaine,meta_domaine,code_qualification,nom_qualification,lien_date_debut,lien_date_fin,particulier',
      'CHARPENTES DU LEON,73282932000018,12 rue de Brest,29800,Landerneau,48.45,-4.25,02 98 12 34 56,contact@charpentes-leon.fr,https://www.charpentes-leon.fr,Qualibat,"Isolation des murs par l\'extérieur",Isolation,7131,Isolation thermique,2024-02-01,2028-01-31,Oui',
      'SANS SIRET,,1 rue X,29000,Quimper,,,,,,Qualibat,Toiture,Couverture,1,Q,2024-01-01,2025-01-01,Non',
    ].join('\n');
    const report = await run('rge', file('rge.csv', csv));
    expect(report).to.include({ inserted: 1, skipped: 1 });
    const rows = await db('rge_certifications').select();
    expect(rows).to.have.length(1);
    expect(rows[0]).to.include({ siret: '73282932000018', organisme: 'Qualibat', domaine: "Isolation des murs par l'extérieur", date_fin: '2028-01-31' });
    const stored = JSON.stringify(rows);
    for (const contact of ['02 98 12 34 56', 'contact@charpentes-leon.fr', 'charpentes-leon.fr']) expect(stored).to.not.include(contact);
  });

  const notice = (idweb: string, extra: Record<string, unknown> = {}) => ({
    idweb,
    id: idweb,
    objet: 'Réfection de la toiture de l’école Jules-Ferry',
    nomacheteur: 'Commune de Quimper',
    dateparution: '2026-11-02',
    datelimitereponse: '2026-12-15T12:00:00+01:00',
    code_departement: ['29'],
    type_marche: ['TRAVAUX'],
    nature: 'APPEL_OFFRE',
    nature_libelle: 'Avis de marché',
    procedure_libelle: 'Procédure adaptée',
    famille: 'MAPA',
    etat: 'INITIAL',
    url_avis: `https://www.boamp.fr/pages/avis/?q=idweb:"${idweb}"`,
    donnees: JSON.stringify({
      OBJET: { CPV: { PRINCIPAL: '45261000', SECONDAIRE: ['45262000'] } },
      IDENTITE: { DENOMINATION: 'Commune de Quimper', TEL: '02 98 98 89 89', MEL: 'marches@quimper.bzh', URL: 'https://www.quimper.bzh' },
    }),
    ...extra,
  });

  it('reads BOAMP in its three layouts, keeps the notice id across re-imports, and stores no contact', async () => {
    const results = await run('boamp', file('boamp.json', JSON.stringify({ results: [notice('26-91551'), notice('26-91552', { objet: '' }), notice('26-91553', { dateparution: 'hier' })] })));
    expect(results).to.include({ read: 3, inserted: 1, skipped: 2 });
    const stored = await db('notices').where({ annonce_id: '26-91551' }).first();
    expect(stored.cpv).to.equal('45261000-4');
    expect(JSON.parse(stored.cpv_codes)).to.deep.equal(['45261000-4', '45262000-1']);
    expect(JSON.parse(stored.departements)).to.deep.equal(['29']);
    expect(stored.marche_id).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const everything = JSON.stringify(await db('notices').select()) + JSON.stringify(await db('buyers').select());
    for (const contact of ['02 98 98 89 89', 'marches@quimper.bzh', 'quimper.bzh', 'boamp.fr']) expect(everything).to.not.include(contact);

    const array = await run('boamp', file('boamp-array.json', JSON.stringify([notice('26-91551'), notice('26-91554')])));
    expect(array).to.include({ read: 2, inserted: 1, updated: 1 });
    expect((await db('notices').where({ annonce_id: '26-91551' }).first()).marche_id).to.equal(stored.marche_id);

    const lines = [JSON.stringify(notice('26-91555')), '{ pas du json', JSON.stringify(notice('26-91556'))].join('\n');
    const jsonl = await run('boamp', file('boamp.jsonl', lines));
    expect(jsonl).to.include({ read: 3, inserted: 2, skipped: 1 });
    expect(jsonl.problems).to.deep.equal([{ position: 2, reason: 'JSON invalide' }]);
  });

  it('reads DECP 2019 and 2024, with their winners and the place of execution', async () => {
    const m2019 = {
      marches: [
        {
          id: '2026-0042',
          uid: '2129002320001420260042',
          acheteur: { id: '21290232000014', nom: 'Commune de Quimper' },
          nature: 'Marché',
          objet: 'Couverture du gymnase',
          codeCPV: '45261000',
          procedure: 'Procédure adaptée',
          lieuExecution: { code: '29000', typeCode: 'Code postal', nom: 'Quimper' },
          dureeMois: 4,
          dateNotification: '2026-09-14',
          datePublicationDonnees: '2026-09-20',
          montant: 184500.5,
          formePrix: 'Forfaitaire',
          titulaires: [{ typeIdentifiant: 'SIRET', id: '73282932000018', denominationSociale: 'CHARPENTES DU LEON' }],
          modifications: [],
          _type: 'Marché',
        },
        { id: '', acheteur: { id: '21290232000014' } },
      ],
    };
    const r2019 = await run('decp', file('decp-2019.json', JSON.stringify(m2019)));
    expect(r2019).to.include({ read: 2, inserted: 1, skipped: 1 });
    const award = await db('awards').where({ award_key: '21290232000014:2026-0042' }).first();
    expect(award).to.include({ departement: '29', cpv: '45261000-4', montant: 184500.5, date_notification: '2026-09-14' });
    expect(await db('award_winners').where({ award_key: '21290232000014:2026-0042' }).select('siren', 'siret')).to.deep.equal([{ siren: '732829320', siret: '73282932000018' }]);

    const m2024 = {
      marches: {
        marche: [
          {
            id: '2026-0108',
            acheteur: { id: '22290001700012' },
            nature: 'Marché',
            objet: 'Isolation du collège',
            codeCPV: '45321000-3',
            procedure: 'Appel d’offres ouvert',
            lieuExecution: { code: '29', typeCode: 'Code département' },
            dureeMois: 6,
            dateNotification: '2026-10-01',
            datePublicationDonnees: '2026-10-03',
            montant: 90000,
            formePrix: 'Unitaire',
            titulaires: [{ titulaire: { typeIdentifiant: 'SIRET', id: '38347481400021' } }],
            modifications: [],
          },
        ],
      },
    };
    const r2024 = await run('decp', file('decp-2024.json', JSON.stringify(m2024)));
    expect(r2024).to.include({ read: 1, inserted: 1 });
    expect((await db('awards').where({ award_key: '22290001700012:2026-0108' }).first()).departement).to.equal('29');
    expect(Number((await db('award_winners').where({ siren: '383474814' }).count<{ n: number | string }[]>('* as n'))[0]?.n)).to.equal(1);
  });

  it('makes what it imports searchable at once (companies with their towns, notices, awards with their winners)', async () => {
    const find = async (index: Parameters<typeof searchKeys>[1], q: string) => (await searchKeys(db, index, parseQuery(q), { limit: 10 })).map((h) => h.key);
    expect(await find(COMPANIES_SEARCH, 'charpentes leon')).to.deep.equal(['732829320']);
    expect(await find(COMPANIES_SEARCH, 'landerneau')).to.deep.equal(['732829320']);
    expect(await find(COMPANIES_SEARCH, 'travaux de couverture')).to.include('732829320');
    expect(await find(NOTICES_SEARCH, 'toiture ecole')).to.have.length.greaterThan(0);
    expect(await find(AWARDS_SEARCH, 'gymnase')).to.deep.equal(['21290232000014:2026-0042']);
    expect(await find(AWARDS_SEARCH, 'charpentes')).to.deep.equal(['21290232000014:2026-0042']);
  });

  it('refuses a missing file clearly and writes nothing', async () => {
    const before = await db('companies').count<{ n: number | string }[]>('* as n');
    const err = await run('sirene-unites', join(dir, 'absent.csv')).catch((e: unknown) => e);
    expect(err).to.be.instanceOf(ImportInputError);
    expect((err as Error).message).to.match(/introuvable/);
    expect(await db('companies').count<{ n: number | string }[]>('* as n')).to.deep.equal(before);
  });

  it('refuses a JSON file of no known layout clearly, and writes nothing', async () => {
    const before = await db('notices').count<{ n: number | string }[]>('* as n');
    const err = await run('boamp', file('texte.json', 'ceci n’est pas du JSON')).catch((e: unknown) => e);
    expect(err).to.be.instanceOf(ImportInputError);
    expect((err as Error).message).to.match(/^format JSON non reconnu/);
    expect(await db('notices').count<{ n: number | string }[]>('* as n')).to.deep.equal(before);
  });
});
