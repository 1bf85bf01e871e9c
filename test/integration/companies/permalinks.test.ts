// Every record's url is a working permalink: a signed-in account sees the record's page (through the same call path), a visitor is sent to sign in and back, and the return address cannot leave the service.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { CookieJar, follow, formFields } from '../../../scripts/lib/native-flow.js';
import { importFile } from '../../../src/import/run.js';
import { IMPORTERS } from '../../../src/domains/importers.js';
import { startTestService, type TestService } from '../../helpers/service.js';

describe('permalinks', function () {
  this.timeout(30000);
  let svc: TestService;
  let dir: string;

  before(async () => {
    svc = await startTestService();
    dir = mkdtempSync(join(tmpdir(), 'permalinks-'));
    writeFileSync(
      join(dir, 'ul.csv'),
      'siren,dateCreationUniteLegale,dateDernierTraitementUniteLegale,etatAdministratifUniteLegale,denominationUniteLegale,categorieJuridiqueUniteLegale,activitePrincipaleUniteLegale,nicSiegeUniteLegale\n732829320,2015-03-02,2026-01-10,A,Charpentes du Léon <SARL>,5499,43.91B,00018\n',
    );
    await importFile(svc.db, IMPORTERS['sirene-unites'] as never, join(dir, 'ul.csv'), { progress: () => ({ update: () => undefined, stop: () => undefined }) });
  });
  after(async () => {
    await svc.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function signIn(jar: CookieJar, next: string): Promise<{ url: string; res: Response }> {
    const login = await follow(`${svc.url}/compte/connexion?suite=${encodeURIComponent(next)}`, jar);
    const { action, fields } = formFields(await login.res.text());
    const form = new URLSearchParams({ ...fields, email: svc.account.email, password: svc.account.password });
    return follow(new URL(action, login.url).toString(), jar, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form.toString() });
  }

  it('sends a visitor to sign in, then back to the record, shown with its fields (escaped)', async () => {
    const visitor = await fetch(`${svc.url}/entreprises/732829320`, { redirect: 'manual' });
    expect(visitor.status).to.equal(303);
    expect(visitor.headers.get('location')).to.equal('/compte/connexion?suite=%2Fentreprises%2F732829320');
    const jar = new CookieJar();
    const landed = await signIn(jar, '/entreprises/732829320');
    expect(landed.url).to.equal(`${svc.url}/entreprises/732829320`);
    const html = await landed.res.text();
    expect(landed.res.status).to.equal(200);
    expect(html).to.include('<h1>Charpentes du Léon &lt;SARL&gt;</h1>').and.include('Travaux de couverture par éléments');
    const record = (await svc.rest('entreprises.get', { siren: '732829320' })).json.results[0];
    expect(record.fields.url).to.equal(`${svc.url}/entreprises/732829320`);
    const unknown = await follow(`${svc.url}/entreprises/999999999`, jar);
    expect(unknown.res.status).to.equal(404);
  });

  it('never sends back outside the service', async () => {
    const jar = new CookieJar();
    const landed = await signIn(jar, 'https://evil.exemple/vol');
    expect(landed.url).to.equal(`${svc.url}/compte/acces-ia`);
    const jar2 = new CookieJar();
    const landed2 = await signIn(jar2, '//evil.exemple/entreprises/1');
    expect(landed2.url).to.equal(`${svc.url}/compte/acces-ia`);
  });
});
