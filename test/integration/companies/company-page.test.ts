// A company's permalink is a readable page of its imported data (identity and where it comes from, activity, RGE, officers with no more than a year of birth, capital, the accounts' chart and table with confidential years undrawn, awards won, proceedings), everything escaped, and still shows the record when the awards read is refused; it renders in Chromium.
import { expect } from 'chai';
import type { Browser } from 'playwright-core';
import { CookieJar, follow, formFields } from '../../../scripts/lib/native-flow.js';
import { setOrganisationPlan } from '../../../src/auth/store/accounts.js';
import { closeBrowser, expectRendered, launchBrowser } from '../../helpers/browser.js';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { importFile } from '../../../src/import/run.js';
import { IMPORTERS } from '../../../src/domains/importers.js';
import { FULL_COMPANY, importFullCompany, rneCompany, rnePerson } from '../../helpers/company-sources.js';
import { startTestService, type TestAccount, type TestService } from '../../helpers/service.js';

const C = FULL_COMPANY;

describe('company page', function () {
  this.timeout(60000);
  let svc: TestService;
  let jar: CookieJar;

  async function signIn(account: TestAccount, next: string): Promise<{ url: string; res: Response; jar: CookieJar }> {
    const cookies = new CookieJar();
    const login = await follow(`${svc.url}/compte/connexion?suite=${encodeURIComponent(next)}`, cookies);
    const { action, fields } = formFields(await login.res.text());
    const form = new URLSearchParams({ ...fields, email: account.email, password: account.password });
    const landed = await follow(new URL(action, login.url).toString(), cookies, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form.toString() });
    return { ...landed, jar: cookies };
  }

  async function show(path: string): Promise<{ status: number; html: string; headers: Headers }> {
    const { res } = await follow(`${svc.url}${path}`, jar);
    return { status: res.status, html: await res.text(), headers: res.headers };
  }

  /** The text of a section (from its heading to the next section). */
  function section(html: string, id: string): string {
    const start = html.indexOf(`<h2 id="${id}">`);
    expect(start, `section ${id}`).to.be.greaterThan(-1);
    const end = html.indexOf('</section>', start);
    return html.slice(start, end);
  }

  before(async () => {
    svc = await startTestService();
    await importFullCompany(svc.db);
    jar = (await signIn(svc.account, '/compte')).jar;
  });
  after(async () => {
    await svc.close();
  });

  it('shows identity, activity, RGE, officers, capital, accounts, awards and proceedings in French sections, escaped', async () => {
    const { status, html, headers } = await show(`/entreprises/${C.siren}`);
    expect(status).to.equal(200);
    expect(headers.get('cache-control')).to.equal('no-store');
    expect(headers.get('x-frame-options')).to.equal('DENY');
    expect(headers.get('content-security-policy')).to.include("default-src 'none'");
    const record = (await svc.rest('entreprises.get', { siren: C.siren })).json.results[0];

    expect(html).to.include('<h1>Charpentes &lt;du&gt; Léon &amp; fils</h1>');
    for (const raw of ['<du>', '<Marie>', '<LACOSTE>', '<école>']) expect(html, raw).to.not.include(raw);
    expect([...html.matchAll(/<h2 id="[a-z]+">([^<]+)<\/h2>/g)].map((m) => m[1])).to.deep.equal([
      'Identité',
      'Activité',
      'Certification RGE',
      'Dirigeants',
      'Capital et comptes',
      'Marchés remportés',
      'Procédures collectives',
    ]);
    // No field name of the record as a label.
    for (const key of Object.keys(record.fields).filter((k) => k.includes('_'))) expect(html, key).to.not.include(key);

    const identity = section(html, 'identite');
    expect(identity).to.include(`<dt>SIREN</dt><dd>${C.siren}</dd>`).and.include(C.siret).and.include('Toitures du Léon');
    expect(identity).to.include(`<dd>${record.fields.forme_juridique}</dd>`).and.include('<dd>PME</dd>').and.include('<dd>02/03/2015</dd>');
    expect(identity).to.include('Active').and.include('12 RUE DE BREST, 29800 LANDERNEAU');
    expect(identity).to.include('<dt>Source de l’identité</dt><dd>Répertoire SIRENE (Insee), unité légale</dd>');
    expect(section(html, 'activite')).to.include('Travaux de couverture par éléments (43.91B)');
    expect(section(html, 'rge')).to.include('Certifiée RGE : 1 qualification en cours, jusqu’au 31/12/2099').and.include('<li>Couverture et zinguerie</li>');

    const officers = section(html, 'dirigeants');
    expect(officers).to.include('<strong>KERDRAON Yannick &lt;Marie&gt;</strong>, Gérant, né(e) en 1970');
    expect(officers).to.include(`<a href="/entreprises/${C.officerCompany.siren}">JPL &lt;LACOSTE&gt;</a> (SIREN ${C.officerCompany.siren}), Commissaire aux comptes titulaire`);
    // The year of birth at most, never an address of the officer.
    for (const secret of ['1970-04', '04/1970', '17/04', 'MOUETTES', 'PLOUGONVELIN', '29217']) expect(html, secret).to.not.include(secret);

    const finances = section(html, 'finances');
    expect(finances).to.include('Capital social : <strong>37\u202f000 €</strong>');
    const svg = /<svg[^>]*>([\s\S]*?)<\/svg>/.exec(finances);
    expect(svg, 'graphique SVG en ligne').to.not.equal(null);
    const bars = [...((svg as RegExpExecArray)[1] as string).matchAll(/<rect class="barre ([^"]+)"[^>]*><title>([^<]+)<\/title>/g)].map((m) => ({ cls: m[1] as string, title: m[2] as string }));
    // Three public years, turnover and net result each; the confidential 2025 undrawn.
    expect(bars.map((b) => b.title)).to.deep.equal([
      '2022, chiffre d’affaires : 950\u202f000 €',
      '2022, résultat net : 42\u202f000 €',
      '2023, chiffre d’affaires : 1\u202f200\u202f000 €',
      '2023, résultat net : -85\u202f000 €',
      '2024, chiffre d’affaires : 1\u202f500\u202f000 €',
      '2024, résultat net : 95\u202f000 €',
    ]);
    expect(bars.filter((b) => b.cls.includes('negatif')).map((b) => b.title)).to.deep.equal(['2023, résultat net : -85\u202f000 €']);
    // The negative bar starts at the zero line and goes down.
    const zero = Number(/<line class="zero"[^>]*y1="([\d.]+)"/.exec(finances)?.[1]);
    const negative = /<rect class="barre barre-rn negatif"[^>]*y="([\d.]+)"[^>]*height="([\d.]+)"/.exec(finances);
    expect(Number(negative?.[1])).to.equal(zero);
    expect(Number(negative?.[2])).to.be.greaterThan(0);
    expect((svg as RegExpExecArray)[0]).to.match(/role="img"/).and.match(/aria-label="Chiffre d’affaires et résultat net par exercice, [^"]*2025 : comptes confidentiels/).and.include('<title>');
    expect(finances).to.include('<th scope="row">31/12/2025</th><td class="confidentiel" colspan="3">comptes confidentiels</td>');
    expect(finances).to.include('<td class="nombre">+25 %</td>').and.include('<td class="nombre">+26,3 %</td>').and.include('-85\u202f000 €');
    expect(html).to.not.include('1\u202f700\u202f000').and.not.include('1700000');

    const award = (await svc.rest('attributions.search', { titulaire: C.siren })).json.results[0];
    const awards = section(html, 'marches');
    expect(awards).to.include(`<a href="/attributions/${encodeURIComponent(award.id)}">Réfection de la toiture &lt;école&gt; Jules Ferry</a>`);
    expect(awards).to.include('15/07/2024').and.include('84\u202f500 €').and.include('Commune de Quimper');
    expect(awards).to.include(`<a href="/rapports/marque/${C.siren}">`);

    const proceedings = section(html, 'procedures');
    expect(proceedings).to.include('Publiée le <strong>10/03/2026</strong> : Procédure collective, Jugement d&#39;ouverture d&#39;une procédure de redressement judiciaire (jugement du 03/03/2026)');
    expect(proceedings).to.include(`<a href="/bodacc/${C.proceeding.id}">`);
  });

  it('links lead to working pages: the officer company, the award, the announcement', async () => {
    const { html } = await show(`/entreprises/${C.siren}`);
    const links = [...html.matchAll(/href="(\/(?:entreprises|attributions|bodacc)\/[^"]+)"/g)].map((m) => m[1] as string);
    expect(links).to.have.length(3);
    for (const link of links) {
      const target = await show(link);
      expect(target.status, link).to.equal(200);
    }
    const officerPage = await show(`/entreprises/${C.officerCompany.siren}`);
    expect(officerPage.html).to.include('<h1>JPL &lt;LACOSTE&gt;</h1>').and.include('Aucun dirigeant connu (registre non importé pour cette entreprise)');
    expect(officerPage.html).to.include('Aucun compte annuel publié').and.include('Aucun marché attribué connu').and.include('Aucune procédure collective');
  });

  it('says the source of a company known only by its RNE entry: the register, its office’s town, never an officer’s home', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'company-page-rne-'));
    try {
      const path = join(dir, 'rne.json');
      writeFileSync(path, JSON.stringify([rneCompany('184200038', '2026-10-01T08:00:00+02:00', [rnePerson('QUEMENER', ['Loïc'], '30', '1975-02')])]));
      await importFile(svc.db, IMPORTERS.rne as never, path, { progress: () => ({ update: () => undefined, stop: () => undefined }) });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    const { status, html } = await show('/entreprises/184200038');
    expect(status).to.equal(200);
    expect(html).to.include('<h1>Société 184200038</h1>');
    const identity = section(html, 'identite');
    expect(identity).to.include('<dt>Source de l’identité</dt><dd>Registre national des entreprises (INPI) : entreprise absente du stock SIRENE importé, identité tirée du registre</dd>');
    expect(identity).to.include('29800 LANDERNEAU').and.not.include('DE BREST');
    expect(section(html, 'dirigeants')).to.include('<strong>QUEMENER Loïc</strong>, Gérant, né(e) en 1975');
    for (const secret of ['1975-02', 'MOUETTES', 'PLOUGONVELIN', '29217']) expect(html, secret).to.not.include(secret);
  });

  it('shows an establishment with the awards its SIRET won', async () => {
    const { status, html } = await show(`/etablissements/${C.siret}`);
    expect(status).to.equal(200);
    expect(html).to.include(`Établissement ${C.siret}`).and.include('<dt>SIRET</dt>').and.include('Réfection de la toiture &lt;école&gt; Jules Ferry');
    expect(html).to.include('Le seul marché attribué à cet établissement');
  });

  it('still shows the record when the awards read is refused (quota), saying so', async () => {
    const account = await svc.createAccount({ organisation: 'Organisation à un appel' });
    await setOrganisationPlan(svc.db, 'Organisation à un appel', { callsPerMinute: 1, callsPerDay: 1000 });
    const landed = await signIn(account, `/entreprises/${C.siren}`);
    expect(landed.url).to.equal(`${svc.url}/entreprises/${C.siren}`);
    expect(landed.res.status).to.equal(200);
    const html = await landed.res.text();
    expect(html).to.include('<h1>Charpentes &lt;du&gt; Léon &amp; fils</h1>').and.include('né(e) en 1970').and.include('<svg');
    expect(section(html, 'marches')).to.include('<p class="error">Les marchés remportés n’ont pas pu être lus : ').and.not.include('/attributions/');
  });

  it('renders in Chromium: the chart has a size, the screenshot has content, nothing is blocked', async () => {
    let browser: Browser | undefined;
    try {
      browser = await launchBrowser();
      const page = await browser.newPage({ viewport: { width: 1000, height: 900 } });
      const problems: string[] = [];
      // A CSP refusal is a console error; the browser's own favicon request is no page resource.
      page.on('console', (m) => {
        if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) problems.push(m.text());
      });
      page.on('response', (r) => {
        if (r.status() >= 400 && new URL(r.url()).pathname !== '/favicon.ico') problems.push(`${r.status()} ${r.url()}`);
      });
      page.on('pageerror', (e) => problems.push(e.message));
      await page.goto(`${svc.url}/entreprises/${C.siren}`);
      await page.getByLabel('Adresse électronique').fill(svc.account.email);
      await page.getByLabel('Mot de passe').fill(svc.account.password);
      await page.getByRole('button', { name: 'Se connecter' }).click();
      await page.waitForURL(`${svc.url}/entreprises/${C.siren}`);
      expect(await page.getByRole('heading', { level: 1 }).textContent()).to.equal(C.name);
      const chart = page.getByRole('img', { name: /Chiffre d’affaires et résultat net par exercice/ });
      const box = await chart.boundingBox();
      expect(box && box.width > 100 && box.height > 100, 'taille du graphique').to.equal(true);
      expect(await page.locator('svg rect.barre').count()).to.equal(6);
      const bar = await page.locator('svg rect.barre-ca').first().boundingBox();
      expect(bar && bar.width > 0 && bar.height > 0, 'barre dessinée').to.equal(true);
      await expectRendered(page, 'fiche-entreprise', [page.getByRole('heading', { name: 'Dirigeants' }), chart, page.getByRole('link', { name: 'JPL <LACOSTE>' })]);
      expect(problems, 'erreurs de la page (CSP comprise)').to.deep.equal([]);
    } finally {
      await closeBrowser(browser);
    }
  });
});
