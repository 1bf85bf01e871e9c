// The permalinks of notices, awards, BODACC announcements, permits and sales are readable French pages like the company page (sections, labels, dates in words, values escaped, links that work, never a contact detail or a private applicant), a notice's page leads to its consultation file's pieces (read page by page, downloaded) and to the awards that followed, and each renders in Chromium under the pages' strict CSP.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import type { Browser } from 'playwright-core';
import { CookieJar, follow, formFields } from '../../../scripts/lib/native-flow.js';
import { docxDocument, pdfDocument, zipOf } from '../../../scripts/demo/documents.js';
import { DVF_COLUMNS } from '../../../scripts/demo/dvf.js';
import { setOrganisationPlan } from '../../../src/auth/store/accounts.js';
import { importDce, parseTarget } from '../../../src/domains/dce/ingest.js';
import { IMPORTERS } from '../../../src/domains/importers.js';
import { importFile } from '../../../src/import/run.js';
import { Extractor } from '../../../src/platform/extract/extractor.js';
import { closeBrowser, expectRendered, launchBrowser } from '../../helpers/browser.js';
import { FULL_COMPANY, importFullCompany } from '../../helpers/company-sources.js';
import { startTestService, type TestAccount, type TestService } from '../../helpers/service.js';

const BUYER_SIRET = '21290232000014';
const C = FULL_COMPANY;
const LONG = Array.from({ length: 40 }, (_, i) => `Article ${i + 1}. La couverture en ardoise naturelle est posée au crochet inox sur liteaux, ${'avec les raccords de zinguerie et les abergements prévus au présent cahier. '.repeat(3)}`);

/** A BOAMP export record (national form), with the buyer's contact details a real one has. */
function boamp(idweb: string, fields: Record<string, unknown>, donnees: Record<string, unknown>): Record<string, unknown> {
  return {
    idweb,
    id: idweb,
    nomacheteur: 'Commune de <Quimper>',
    code_departement: ['29'],
    type_marche: ['TRAVAUX'],
    procedure_libelle: 'Procédure adaptée',
    famille: 'MAPA',
    etat: 'INITIAL',
    url_avis: `https://www.boamp.fr/pages/avis/?q=idweb:"${idweb}"`,
    ...fields,
    donnees: JSON.stringify({ IDENTITE: { DENOMINATION: 'Commune de <Quimper>', SIRET: BUYER_SIRET, TEL: '02 98 98 89 89', MEL: 'marches@quimper.bzh', URL: 'https://www.quimper.bzh' }, ...donnees }),
  };
}

const NOTICE = boamp(
  '26-20001',
  { objet: 'Réfection <toiture> & zinguerie du groupe scolaire', dateparution: '2026-01-05', datelimitereponse: '2026-02-16T12:00:00+01:00', nature: 'APPEL_OFFRE', nature_libelle: 'Avis de marché', annonce_lie: null },
  {
    OBJET: {
      TITRE_MARCHE: 'Réfection <toiture> & zinguerie du groupe scolaire',
      CPV: { PRINCIPAL: '45261000' },
      DIV_EN_LOTS: { OUI: '' },
      LOTS: { LOT: [{ NUM: '1', INTITULE: 'Couverture <ardoise>', CPV: { PRINCIPAL: '45261210' } }, { NUM: '2', INTITULE: 'Zinguerie', CPV: { PRINCIPAL: '45261320' } }] },
    },
    CONDITION_DELAI: { RECEPT_OFFRES: '2026-02-16T12:00:00' },
  },
);
const AWARD_NOTICE = boamp(
  '26-20002',
  { objet: 'Réfection <toiture> & zinguerie du groupe scolaire', dateparution: '2026-04-20', datelimitereponse: null, nature: 'ATTRIBUTION', nature_libelle: 'Résultat de marché', annonce_lie: '26-20001', titulaire: ['Couvreurs <Bretons>'] },
  { OBJET: { TITRE_MARCHE: 'Réfection <toiture> & zinguerie du groupe scolaire', CPV: { PRINCIPAL: '45261000' } } },
);

const DECP = {
  marches: [
    {
      id: 'M-2026-07',
      acheteur: { id: BUYER_SIRET, nom: 'Commune de <Quimper>' },
      nature: 'Marché',
      objet: 'Charpente <bois> du gymnase',
      codeCPV: '45261000',
      procedure: 'Procédure adaptée',
      lieuExecution: { code: '29', typeCode: 'Code département' },
      dureeMois: 6,
      dateNotification: '2026-04-10',
      montant: 100000,
      titulaires: [{ typeIdentifiant: 'SIRET', id: C.siret, denominationSociale: 'CHARPENTES <DU> LEON' }],
      modifications: [
        { modification: { id: 2, dateNotificationModification: '2026-09-01', montant: 118000, dureeMois: 9, objetModification: 'Reprise <des> chevrons' } },
        { modification: { id: 1, dateNotificationModification: '2026-06-01', montant: 108000 } },
      ],
    },
    {
      id: 'AC-2026-01',
      acheteur: { id: BUYER_SIRET, nom: 'Commune de <Quimper>' },
      nature: 'Accord-cadre',
      objet: 'Accord-cadre d’entretien des bâtiments',
      codeCPV: '45453000',
      procedure: 'Appel d’offres ouvert',
      lieuExecution: { code: '29', typeCode: 'Code département' },
      dureeMois: 48,
      dateNotification: '2026-03-02',
      montant: 0,
      titulaires: [{ typeIdentifiant: 'TVA', id: 'BE0123456789', denominationSociale: 'BOUW <NV>' }],
    },
  ],
};

const SITADEL_CODES = [
  'REG_CODE', 'REG_LIBELLE', 'DEP_CODE', 'DEP_LIBELLE', 'COMM', 'TYPE_DAU', 'NUM_DAU', 'ETAT_DAU', 'DATE_REELLE_AUTORISATION', 'DATE_REELLE_DOC',
  'DATE_REELLE_DAACT', 'AN_DEPOT', 'DPC_DERN', 'APE_DEM', 'CJ_DEM', 'DENOM_DEM', 'SIREN_DEM', 'SIRET_DEM', 'CODPOST_DEM', 'LOCALITE_DEM',
  'ADR_NUM_TER', 'ADR_TYPEVOIE_TER', 'ADR_LIBVOIE_TER', 'ADR_LOCALITE_TER', 'ADR_CODPOST_TER', 'SUPERFICIE_TERRAIN', 'NATURE_PROJET_DECLAREE',
  'NB_LGT_TOT_CREES', 'SURF_HAB_CREEE', 'SURF_LOC_CREEE',
];
/** Two permits: a company's (in the directory) and a private person's (whose own town is published, never kept). */
const SITADEL = [
  SITADEL_CODES.map((c) => `"Libellé ${c}"`).join(';'),
  SITADEL_CODES.map((c) => `"${c}"`).join(';'),
  `"53";"Bretagne";"29";"Finistère";"29232";"PC";"02923226A0001";5;"2026-03-12";"2026-05-04";"";2025;"2026-06";"41.20A";"5710";"SCI <LES HAUTS>";"${C.siren}";"${C.siret}";"29999";"LOCALITE-DU-GERANT";"3";"RUE";"DE LA <GARE>";"QUIMPER";"29000";1200;1;24;1500;0`,
  `"53";"Bretagne";"29";"Finistère";"29232";"DP";"02923226A0002";2;"2026-04-01";"";"";2026;"2026-06";"";"";"";"";"";"29888";"LOCALITE-DU-PARTICULIER";"8";"IMP";"DES MOUETTES";"QUIMPER";"29000";450;2;0;20;0`,
].join('\n');

const DVF_SALE = [
  { id_mutation: '2026-4242', date_mutation: '2026-09-14', numero_disposition: '000001', nature_mutation: 'Vente', valeur_fonciere: '250000', adresse_numero: '12', adresse_nom_voie: 'RUE DE LA <GARE>', code_postal: '29000', code_commune: '29232', nom_commune: 'Quimper', code_departement: '29', id_parcelle: '29232000AB0001', code_type_local: '1', type_local: 'Maison', surface_reelle_bati: '100', nombre_pieces_principales: '5', code_nature_culture: 'S', nature_culture: 'sols', surface_terrain: '500' },
];

describe('record pages: notices, awards, announcements, permits, sales', function () {
  this.timeout(90000);
  let svc: TestService;
  let dir: string;
  let jar: CookieJar;
  let notice: string;
  const silent = { progress: () => ({ update: () => undefined, stop: () => undefined }) };

  async function signIn(account: TestAccount, next: string): Promise<{ url: string; res: Response; jar: CookieJar }> {
    const cookies = new CookieJar();
    const login = await follow(`${svc.url}/compte/connexion?suite=${encodeURIComponent(next)}`, cookies);
    const { action, fields } = formFields(await login.res.text());
    const form = new URLSearchParams({ ...fields, email: account.email, password: account.password });
    const landed = await follow(new URL(action, login.url).toString(), cookies, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form.toString() });
    return { ...landed, jar: cookies };
  }

  async function show(path: string): Promise<{ status: number; html: string; headers: Headers; url: string }> {
    const { res, url } = await follow(`${svc.url}${path}`, jar);
    return { status: res.status, html: await res.text(), headers: res.headers, url };
  }

  function section(html: string, id: string): string {
    const start = html.indexOf(`<h2 id="${id}">`);
    expect(start, `section ${id}`).to.be.greaterThan(-1);
    return html.slice(start, html.indexOf('</section>', start));
  }

  const headings = (html: string) => [...html.matchAll(/<h2 id="[a-z]+">([^<]+)<\/h2>/g)].map((m) => m[1]);

  /** A readable page: the strict headers, the record's title escaped, no field name of the record as a label, no raw ISO date, no contact detail. */
  async function expectReadable(path: string, record: { titre: string; fields: Record<string, unknown> }): Promise<string> {
    const { status, html, headers } = await show(path);
    expect(status, path).to.equal(200);
    expect(headers.get('cache-control')).to.equal('no-store');
    expect(headers.get('x-frame-options')).to.equal('DENY');
    expect(headers.get('content-security-policy')).to.include("default-src 'none'");
    expect(html).to.include(`<h1>${record.titre.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')}</h1>`);
    for (const key of Object.keys(record.fields).filter((k) => k.includes('_'))) expect(html, `${path} : ${key}`).to.not.include(key);
    // Dates in words, never as the answers carry them.
    expect(html, `${path} : date ISO`).to.not.match(/\d{4}-\d{2}-\d{2}/);
    for (const contact of ['02 98 98 89 89', 'marches@quimper.bzh', 'www.quimper.bzh', 'boamp.fr', 'bodacc.fr']) expect(html, `${path} : ${contact}`).to.not.include(contact);
    return html;
  }

  before(async () => {
    svc = await startTestService();
    dir = mkdtempSync(join(tmpdir(), 'record-pages-'));
    await importFullCompany(svc.db);
    const dvf = [DVF_COLUMNS.join(','), ...DVF_SALE.map((l) => DVF_COLUMNS.map((c) => (l as Record<string, string>)[c] ?? '').join(','))].join('\n');
    for (const [source, name, content] of [
      ['boamp', 'boamp.json', JSON.stringify({ results: [NOTICE, AWARD_NOTICE] })],
      ['decp', 'decp.json', JSON.stringify(DECP)],
      ['permis', 'permis.csv', SITADEL],
      ['dvf', 'dvf.csv', dvf],
    ] as const) {
      writeFileSync(join(dir, name), content);
      const report = await importFile(svc.db, IMPORTERS[source] as never, join(dir, name), silent);
      expect(report.skipped, `${source} ${JSON.stringify(report.problems)}`).to.equal(0);
    }
    notice = ((await svc.db('notices').where('annonce_id', '26-20001').first('marche_id')) as { marche_id: string }).marche_id;
    const archive = join(dir, 'dce.zip');
    writeFileSync(
      archive,
      await zipOf([
        { name: 'RC.pdf', data: await pdfDocument([{ lines: ['Règlement de la consultation', 'Qualification Qualibat 3194 exigée.'] }, { scan: true }]) },
        { name: 'Lot 1/CCTP lot 1.docx', data: await docxDocument(['CCTP lot 1 Couverture', ...LONG]) },
        { name: 'Plans/plan-masse.dwg', data: Buffer.from('AC1027') },
      ]),
    );
    const extractor = new Extractor();
    try {
      await importDce({ db: svc.db, store: svc.dceStore, extractor, now: () => new Date() }, parseTarget('26-20001'), [archive]);
    } finally {
      await extractor.close();
    }
    jar = (await signIn(svc.account, '/compte')).jar;
  });
  after(async () => {
    await svc.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a notice: state, buyer linked, deadline and dates in words, lots, the consultation file’s pieces, the awards that followed', async () => {
    const record = (await svc.rest('marches.get', { marche_id: notice })).json.results[0];
    expect(record.fields.acheteur_id).to.equal(BUYER_SIRET);
    const html = await expectReadable(`/marches/${notice}`, record);
    expect(headings(html)).to.deep.equal(['L’avis', 'Lots', 'Dossier de consultation', 'Attributions']);
    const about = section(html, 'avis');
    expect(about).to.include('<dt>État</dt><dd><span class="etat etat-clos">Clos</span></dd>');
    expect(about).to.include(`<dt>Acheteur</dt><dd><a href="/acheteurs/${BUYER_SIRET}">Commune de &lt;Quimper&gt;</a></dd>`);
    expect(about).to.include('<dt>Date limite de réponse</dt><dd>16 février 2026 à 12 h 00 (heure de Paris)</dd>');
    expect(about).to.include('<dt>Publié le</dt><dd>5 janvier 2026</dd>').and.include('<dd>Avis de marché</dd>').and.include('<dd>Travaux</dd>').and.include('<dd>45261000-4</dd>');
    // The award notice that followed is no correction of it.
    expect(about).to.not.include('Dernière modification');
    const lots = section(html, 'lots');
    expect(lots).to.include('2 lots').and.include('<th scope="row">1</th><td>Couverture &lt;ardoise&gt;</td><td>45261210-9</td>');
    const dce = section(html, 'dce');
    expect(dce).to.include('3 pièces').and.include(`<a href="/marches/${notice}/dce/telechargement">Télécharger tout le dossier (archive zip)</a>`);
    expect(dce).to.include('<th scope="row">RC.pdf</th><td>Règlement de la consultation</td>').and.include('(1 page de lecture)');
    expect(dce).to.include('<th scope="row">Lot 1/CCTP lot 1.docx</th>').and.include('(2 pages de lecture)');
    expect(dce).to.include(`<a href="/marches/${notice}/dce/lecture?piece=Lot+1%2FCCTP+lot+1.docx&amp;type=cctp">Lire</a>`);
    expect(dce).to.include('<th scope="row">Plans/plan-masse.dwg</th><td>Plan</td><td>—</td><td><span class="muted">sans texte</span>');
    const awards = section(html, 'attributions');
    const award = (await svc.rest('attributions.search', { avis: '26-20001' })).json.results;
    expect(award).to.have.length(1);
    expect(awards).to.include(`<a href="/attributions/${encodeURIComponent(award[0].id)}">`).and.include('Couvreurs &lt;Bretons&gt;').and.include('20 avril 2026');
    for (const raw of ['<toiture>', '<Quimper>', '<ardoise>', '<Bretons>']) expect(html, raw).to.not.include(raw);
  });

  it('a notice’s links lead to working pages: buyer, award, award notice; the award notice has no file and shows its own results', async () => {
    const { html } = await show(`/marches/${notice}`);
    const links = [...html.matchAll(/href="(\/(?:acheteurs|attributions|marches)\/[^"/]+)"/g)].map((m) => m[1] as string);
    expect(links.some((l) => l.startsWith('/acheteurs/'))).to.equal(true);
    expect(links.some((l) => l.startsWith('/attributions/'))).to.equal(true);
    for (const link of links) expect((await show(link)).status, link).to.equal(200);
    const awardNotice = await show('/marches/26-20002');
    expect(awardNotice.status).to.equal(200);
    expect(section(awardNotice.html, 'dce')).to.include('Aucun dossier de consultation importé pour cet avis.');
    expect(section(awardNotice.html, 'avis')).to.include('<a href="/marches/26-20001">avis 26-20001</a>');
    expect(section(awardNotice.html, 'attributions')).to.include('Couvreurs &lt;Bretons&gt;');
  });

  it('reads a piece page by page from the notice’s page and downloads a piece and the whole file through signed links', async () => {
    const first = await show(`/marches/${notice}/dce/lecture?piece=${encodeURIComponent('Lot 1/CCTP lot 1.docx')}&type=cctp`);
    expect(first.status).to.equal(200);
    expect(first.headers.get('content-security-policy')).to.include("default-src 'none'");
    expect(first.html).to.include('<h1>Lot 1/CCTP lot 1.docx</h1>').and.include('<strong>Page 1 sur 2</strong>').and.include('Article 1.');
    expect(first.html).to.include(`<a href="/marches/${notice}">Réfection &lt;toiture&gt; &amp; zinguerie du groupe scolaire</a>`);
    const next = /href="([^"]+)">Page suivante/.exec(first.html)?.[1]?.replace(/&amp;/g, '&');
    expect(next).to.equal(`/marches/${notice}/dce/lecture?piece=Lot+1%2FCCTP+lot+1.docx&type=cctp&page=2`);
    const second = await show(next as string);
    expect(second.html).to.include('<strong>Page 2 sur 2</strong>').and.include('Article 40.').and.include('Page précédente').and.not.include('Page suivante');
    // Past the last page: the service's refusal, said on a page.
    const past = await show(`/marches/${notice}/dce/lecture?piece=RC.pdf&type=rc&page=3`);
    expect(past.status).to.equal(400);
    expect(past.html).to.include('dépasse les 1 page de lecture');

    const piece = await follow(`${svc.url}/marches/${notice}/dce/telechargement?piece=RC.pdf`, jar);
    expect(piece.url).to.match(new RegExp(`^${svc.url}/dce/telechargement/`));
    expect(piece.res.status).to.equal(200);
    expect(piece.res.headers.get('content-type')).to.include('application/pdf');
    expect(Buffer.from(await piece.res.arrayBuffer()).subarray(0, 5).toString()).to.equal('%PDF-');
    const whole = await follow(`${svc.url}/marches/${notice}/dce/telechargement`, jar);
    expect(whole.res.status).to.equal(200);
    expect(whole.res.headers.get('content-type')).to.include('application/zip');
    // A visitor is sent to sign in, and back to the same reading.
    const visitor = await fetch(`${svc.url}/marches/${notice}/dce/lecture?piece=RC.pdf&type=rc`, { redirect: 'manual' });
    expect(visitor.status).to.equal(303);
    expect(visitor.headers.get('location')).to.equal(`/compte/connexion?suite=${encodeURIComponent(`/marches/${notice}/dce/lecture?piece=RC.pdf&type=rc`)}`);
  });

  it('an award: buyer and winners linked, the amount in force and the original, the amendments; « montant non publié » for 0', async () => {
    const found = (await svc.rest('attributions.search', { acheteur_siret: BUYER_SIRET, query: 'gymnase' })).json.results[0];
    const html = await expectReadable(`/attributions/${encodeURIComponent(found.id)}`, found);
    expect(headings(html)).to.deep.equal(['Le marché', 'Montant', 'Titulaires', 'Modifications']);
    expect(section(html, 'marche')).to.include(`<dt>Acheteur</dt><dd><a href="/acheteurs/${BUYER_SIRET}">`).and.include('<dt>Notifié le</dt><dd>10 avril 2026</dd>').and.include('<dd>9 mois (initialement 6 mois)</dd>');
    const amount = section(html, 'montant');
    expect(amount).to.include('<dt>Montant en vigueur</dt><dd><strong>118\u202f000 €</strong> HT</dd>').and.include('<dt>Montant initial</dt><dd>100\u202f000 € HT</dd>').and.include('2 modifications');
    expect(section(html, 'titulaires')).to.include(`<a href="/entreprises/${C.siren}">CHARPENTES &lt;DU&gt; LEON</a></strong> (SIRET ${C.siret})`);
    const amendments = section(html, 'modifications');
    expect(amendments.indexOf('1er juin 2026')).to.be.lessThan(amendments.indexOf('1er septembre 2026'));
    expect(amendments).to.include('Reprise &lt;des&gt; chevrons').and.include('montant porté à 118\u202f000 €');
    expect((await show(`/entreprises/${C.siren}`)).status).to.equal(200);

    const framework = (await svc.rest('attributions.search', { acheteur_siret: BUYER_SIRET, query: 'entretien' })).json.results[0];
    const zero = await expectReadable(`/attributions/${encodeURIComponent(framework.id)}`, framework);
    expect(section(zero, 'montant')).to.include('<dt>Montant en vigueur</dt><dd><strong>montant non publié</strong></dd>').and.not.include('0 €');
    expect(section(zero, 'titulaires')).to.include('<strong>BOUW &lt;NV&gt;</strong> (TVA BE0123456789, tel que publié)');
  });

  it('a BODACC announcement: the announcement, the company linked by SIREN, the judgement, dates in words', async () => {
    const record = (await svc.rest('bodacc.get', { id: C.proceeding.id })).json.results[0];
    const html = await expectReadable(`/bodacc/${C.proceeding.id}`, record);
    expect(headings(html)).to.deep.equal(['L’annonce', 'L’entreprise', 'Jugement']);
    expect(section(html, 'annonce')).to.include('<dt>Publiée le</dt><dd>10 mars 2026</dd>').and.include('<dd>Procédures collectives</dd>').and.include('Greffe du Tribunal de Commerce de Brest').and.include('29800 Landerneau');
    expect(section(html, 'entreprise')).to.include('<dd>Charpentes &lt;du&gt; Léon &amp; fils</dd>').and.include(`<a href="/entreprises/${C.siren}">${C.siren}</a>`);
    expect(section(html, 'jugement')).to.include('<dt>Date du jugement</dt><dd>3 mars 2026</dd>').and.include('redressement judiciaire');
  });

  it('a permit: the authorisation, the land, the project and the company applicant linked; a private applicant never named nor located', async () => {
    const company = (await svc.rest('permis.get', { id: 'PC02923226A0001' })).json.results[0];
    const html = await expectReadable('/permis/PC02923226A0001', company);
    expect(headings(html)).to.deep.equal(['L’autorisation', 'Le terrain', 'Le projet', 'Le demandeur']);
    expect(section(html, 'autorisation')).to.include('Chantier commencé').and.include('<dt>Autorisé le</dt><dd>12 mars 2026</dd>').and.include('<dd>4 mai 2026</dd>').and.include('<dd>juin 2026</dd>');
    expect(section(html, 'terrain')).to.include('DE LA &lt;GARE&gt;').and.include('29000 QUIMPER').and.include('1\u202f200 m²');
    expect(section(html, 'projet')).to.include('<dt>Logements créés</dt><dd>24</dd>').and.include('1\u202f500 m²');
    expect(section(html, 'demandeur')).to.include(`<a href="/entreprises/${C.siren}">SCI &lt;LES HAUTS&gt;</a>`);
    for (const own of ['29999', 'LOCALITE-DU-GERANT']) expect(html, own).to.not.include(own);

    const person = (await svc.rest('permis.get', { id: 'DP02923226A0002' })).json.results[0];
    const private_ = await expectReadable('/permis/DP02923226A0002', person);
    expect(section(private_, 'demandeur')).to.include('Particulier ou demandeur non diffusé');
    for (const own of ['29888', 'LOCALITE-DU-PARTICULIER']) expect(private_, own).to.not.include(own);
  });

  it('a sale: price and price per m², the place, the premises and the parcels', async () => {
    const record = (await svc.rest('ventes.search', { id_mutation: '2026-4242' })).json.results[0];
    const html = await expectReadable('/ventes/2026-4242', record);
    expect(headings(html)).to.deep.equal(['La vente', 'Le lieu', 'Les locaux', 'Les parcelles']);
    expect(section(html, 'vente')).to.include('<dt>Date</dt><dd>14 septembre 2026</dd>').and.include('<strong>250\u202f000 €</strong>').and.include('2\u202f500 €').and.include('<dd>100 m²</dd>');
    expect(section(html, 'lieu')).to.include('DE LA &lt;GARE&gt;').and.include('29000 Quimper');
    expect(section(html, 'locaux')).to.include('<td>Maison</td>');
    expect(section(html, 'parcelles')).to.include('29232000AB0001').and.include('500 m²');
  });

  it('still shows a notice when its other reads are refused (quota), saying so in each section', async () => {
    const account = await svc.createAccount({ organisation: 'Organisation à un appel (avis)' });
    await setOrganisationPlan(svc.db, 'Organisation à un appel (avis)', { callsPerMinute: 1, callsPerDay: 1000 });
    const landed = await signIn(account, `/marches/${notice}`);
    expect(landed.url).to.equal(`${svc.url}/marches/${notice}`);
    const html = await landed.res.text();
    expect(landed.res.status).to.equal(200);
    expect(section(html, 'lots')).to.include('Couverture &lt;ardoise&gt;');
    expect(section(html, 'dce')).to.include('<p class="error">Le dossier de consultation n’a pas pu être lu : Quota par minute atteint');
    expect(section(html, 'attributions')).to.include('<p class="error">Les attributions n’ont pas pu être lues : ').and.not.include('/attributions/');
  });

  it('renders each page in Chromium, nothing blocked; a piece is read by following the notice page’s links', async () => {
    let browser: Browser | undefined;
    try {
      browser = await launchBrowser();
      const page = await browser.newPage({ viewport: { width: 1000, height: 900 } });
      const problems: string[] = [];
      page.on('console', (m) => {
        if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) problems.push(m.text());
      });
      page.on('response', (r) => {
        if (r.status() >= 400 && new URL(r.url()).pathname !== '/favicon.ico') problems.push(`${r.status()} ${r.url()}`);
      });
      page.on('pageerror', (e) => problems.push(e.message));
      await page.goto(`${svc.url}/marches/${notice}`);
      await page.getByLabel('Adresse électronique').fill(svc.account.email);
      await page.getByLabel('Mot de passe').fill(svc.account.password);
      await page.getByRole('button', { name: 'Se connecter' }).click();
      await page.waitForURL(`${svc.url}/marches/${notice}`);
      expect(await page.getByRole('heading', { level: 1 }).textContent()).to.equal('Réfection <toiture> & zinguerie du groupe scolaire');
      await expectRendered(page, 'fiche-avis', [page.getByRole('heading', { name: 'Dossier de consultation' }), page.getByRole('link', { name: 'Commune de <Quimper>' }), page.getByRole('cell', { name: 'Couverture <ardoise>' })]);

      await page.getByRole('row', { name: /CCTP lot 1/ }).getByRole('link', { name: 'Lire' }).click();
      await page.waitForURL(/\/dce\/lecture\?/);
      expect(await page.getByText('Page 1 sur 2').isVisible()).to.equal(true);
      await page.getByRole('link', { name: 'Page suivante →' }).first().click();
      await page.waitForURL(/page=2$/);
      await expectRendered(page, 'lecture-piece', [page.getByText('Page 2 sur 2'), page.getByText(/Article 40\./)]);
      await page.getByRole('link', { name: 'Réfection <toiture> & zinguerie du groupe scolaire' }).click();
      await page.waitForURL(`${svc.url}/marches/${notice}`);

      const award = (await svc.rest('attributions.search', { acheteur_siret: BUYER_SIRET, query: 'gymnase' })).json.results[0];
      for (const [path, name, heading] of [
        [`/attributions/${encodeURIComponent(award.id)}`, 'fiche-attribution', 'Titulaires'],
        [`/bodacc/${C.proceeding.id}`, 'fiche-bodacc', 'Jugement'],
        ['/permis/PC02923226A0001', 'fiche-permis', 'Le demandeur'],
        ['/ventes/2026-4242', 'fiche-vente', 'Les parcelles'],
      ] as const) {
        await page.goto(`${svc.url}${path}`);
        await expectRendered(page, name, [page.getByRole('heading', { level: 1 }), page.getByRole('heading', { name: heading })]);
      }
      expect(problems, 'erreurs de la page (CSP comprise)').to.deep.equal([]);
    } finally {
      await closeBrowser(browser);
    }
  });
});
