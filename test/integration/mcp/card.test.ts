// The results card is announced (MCP Apps _meta.ui and openai/outputTemplate) on exactly the card tools of the connectors and assistant addresses, served as a resource there only, and renders real company (with its accounts, officers and proceedings), notice and consultation-file answers in a browser, delivered as a host delivers them.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Browser, FrameLocator, Page } from 'playwright-core';
import { DEMO_DCE_SHOWCASE } from '../../../scripts/demo/dce.js';
import { importDemoDataIfEmpty } from '../../../scripts/demo/first-start.js';
import type { ToolEntry } from '../../../src/contract/types.js';
import { cardDocument } from '../../../src/mcp/card-template.js';
import { readableText } from '../../../src/mcp/readable-text.js';
import { IMPORTERS } from '../../../src/domains/importers.js';
import { importFile } from '../../../src/import/run.js';
import { closeBrowser, expectRendered, launchBrowser } from '../../helpers/browser.js';
import { FULL_COMPANY, importFullCompany, ratiosCsv } from '../../helpers/company-sources.js';
import { mcpClient } from '../../helpers/mcp.js';
import { startTestService, type TestService } from '../../helpers/service.js';

const catalogue = JSON.parse(readFileSync(new URL('../../../generated/tools.json', import.meta.url), 'utf8')) as { tools: ToolEntry[] };
const isCardTool = (name: string, path: string): boolean => catalogue.tools.find((t) => t.name === name)?.card.includes(path.split('/').pop() as ToolEntry['profiles'][number]) === true;

const CARD_URI = 'ui://cartes/resultats.html';
const CARD_MIME = 'text/html;profile=mcp-app';
const CARD_ADDRESSES = ['/api/mcp/connectors', '/api/mcp/assistant'];

async function rpcError(promise: Promise<unknown>): Promise<McpError> {
  try {
    await promise;
  } catch (err) {
    expect(err).to.be.instanceOf(McpError);
    return err as McpError;
  }
  expect.fail('une erreur JSON-RPC était attendue');
}

interface Record_ {
  id: string;
  titre: string;
  resume: string;
  fields: Record<string, unknown>;
}

/**
 * A minimal MCP Apps host: the card in a sandboxed iframe (srcdoc), the ui/initialize
 * handshake answered, then, once the view says `initialized`, the tool input and the tool
 * result as notifications; the iframe follows the size the view reports.
 */
const HOST_PAGE = `<!DOCTYPE html>
<html lang="fr"><head><meta charset="utf-8"><title>Hôte MCP Apps de test</title>
<style>
body { margin: 0; background: #e9edf1; font-family: sans-serif; }
header { padding: 8px 16px; background: #2f3a48; color: #fff; font-size: 14px; }
iframe { display: block; width: 760px; height: 120px; margin: 12px 16px; border: 1px solid #b7c0c9; border-radius: 8px; background: #fff; }
</style></head>
<body><header>Hôte MCP Apps de test</header>
<iframe id="vue" sandbox="allow-scripts" title="Carte de résultats"></iframe>
<script>
window.recus = [];
window.demarrer = function (html, args, resultat) {
  var cadre = document.getElementById('vue');
  window.addEventListener('message', function (ev) {
    if (ev.source !== cadre.contentWindow) return;
    var m = ev.data;
    window.recus.push(m);
    if (m.method === 'ui/initialize') {
      cadre.contentWindow.postMessage({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: '2026-01-26', hostInfo: { name: 'hote-test', version: '0' }, hostCapabilities: {}, hostContext: { theme: 'light', displayMode: 'inline' } } }, '*');
    } else if (m.method === 'ui/notifications/initialized') {
      cadre.contentWindow.postMessage({ jsonrpc: '2.0', method: 'ui/notifications/tool-input', params: { arguments: args } }, '*');
      cadre.contentWindow.postMessage({ jsonrpc: '2.0', method: 'ui/notifications/tool-result', params: resultat }, '*');
    } else if (m.method === 'ui/notifications/size-changed') {
      cadre.style.height = m.params.height + 'px';
    }
  });
  cadre.srcdoc = html;
};
</script></body></html>`;

describe('results card (MCP Apps UI resource)', function () {
  this.timeout(180_000);
  let svc: TestService;
  const clients: Client[] = [];

  async function connect(path: string): Promise<Client> {
    const client = await mcpClient(`${svc.url}${path}`, svc.token);
    clients.push(client);
    return client;
  }

  before(async () => {
    svc = await startTestService();
    await importDemoDataIfEmpty(svc.db, () => undefined, svc.dceStore);
  });

  after(async () => {
    for (const client of clients) await client.close();
    await svc?.close();
  });

  for (const path of CARD_ADDRESSES) {
    describe(path, () => {
      it('tools/list links the card on exactly the card tools: _meta.ui.resourceUri, _meta.ui.csp and openai/outputTemplate', async () => {
        const { tools } = await (await connect(path)).listTools();
        const withCard = tools.filter((t) => isCardTool(t.name, path));
        expect(withCard.length, 'outils à carte annoncés').to.be.greaterThan(0);
        for (const tool of tools) {
          const meta = tool._meta as Record<string, any> | undefined;
          if (isCardTool(tool.name, path)) {
            expect(meta?.ui?.resourceUri, tool.name).to.equal(CARD_URI);
            expect(meta?.ui?.csp, tool.name).to.deep.equal({ connectDomains: [], resourceDomains: [] });
            expect(meta?.['openai/outputTemplate'], tool.name).to.equal(CARD_URI);
          } else {
            expect(meta?.ui, tool.name).to.equal(undefined);
            expect(meta?.['openai/outputTemplate'], tool.name).to.equal(undefined);
          }
        }
      });

      it('resources/list lists the card with its name, title and mime type', async () => {
        const { resources } = await (await connect(path)).listResources();
        expect(resources).to.have.length(1);
        expect(resources[0]).to.include({ uri: CARD_URI, name: 'carte-resultats', title: 'Carte de résultats', mimeType: CARD_MIME });
      });

      it('resources/templates/list answers an empty list (the resources capability is declared; the card has a fixed URI)', async () => {
        expect((await (await connect(path)).listResourceTemplates()).resourceTemplates).to.deep.equal([]);
      });

      it('resources/read returns the self-contained HTML with its CSP', async () => {
        const { contents } = await (await connect(path)).readResource({ uri: CARD_URI });
        expect(contents).to.have.length(1);
        const content = contents[0] as { uri: string; mimeType: string; text: string; _meta: Record<string, any> };
        expect(content.uri).to.equal(CARD_URI);
        expect(content.mimeType).to.equal(CARD_MIME);
        expect(content.text).to.equal(cardDocument());
        expect(content.text).to.include('<html lang="fr">');
        expect(content.text).to.not.match(/https?:\/\//);
        expect(content._meta.ui.csp).to.deep.equal({ connectDomains: [], resourceDomains: [] });
      });

      it('resources/read of any other URI is -32602, in French', async () => {
        const client = await connect(path);
        for (const uri of ['ui://cartes/autre.html', 'ui://cartes/resultats.html?x=1', 'https://exemple.fr/carte.html']) {
          const err = await rpcError(client.readResource({ uri }));
          expect(err.code, uri).to.equal(-32602);
          expect(err.message, uri).to.include('Ressource inconnue').and.include(uri);
        }
      });
    });
  }

  describe('/api/mcp', () => {
    it('announces no card: no tool has _meta.ui or openai/outputTemplate', async () => {
      const { tools } = await (await connect('/api/mcp')).listTools();
      expect(tools.some((t) => isCardTool(t.name, '/api/mcp/connectors') || isCardTool(t.name, '/api/mcp/assistant')), 'les outils à carte y sont listés').to.equal(true);
      for (const tool of tools) {
        const meta = tool._meta as Record<string, unknown> | undefined;
        expect(meta?.ui, tool.name).to.equal(undefined);
        expect(meta?.['openai/outputTemplate'], tool.name).to.equal(undefined);
      }
    });

    it('lists no resource and does not serve the card (-32602)', async () => {
      const client = await connect('/api/mcp');
      expect((await client.listResources()).resources).to.deep.equal([]);
      expect((await client.listResourceTemplates()).resourceTemplates).to.deep.equal([]);
      const err = await rpcError(client.readResource({ uri: CARD_URI }));
      expect(err.code).to.equal(-32602);
      expect(err.message).to.include('Ressource inconnue');
    });
  });

  describe('tool results', () => {
    it('a card tool still answers the data in structuredContent and its readable text in content', async () => {
      const client = await connect('/api/mcp/connectors');
      const result = (await client.callTool({ name: 'marches_rechercher', arguments: { limit: 5 } })) as CallToolResult;
      expect(result.isError).to.not.equal(true);
      const rest = await svc.rest('marches.search', { limit: 5 });
      expect(rest.status).to.equal(200);
      expect(result.structuredContent).to.deep.equal(rest.json);
      expect(result.content).to.deep.equal([{ type: 'text', text: readableText(rest.json) }]);
    });
  });

  describe('in headless Chromium', () => {
    let browser: Browser | undefined;
    let html: string;

    before(async () => {
      browser = await launchBrowser();
      const { contents } = await (await connect('/api/mcp/assistant')).readResource({ uri: CARD_URI });
      html = (contents[0] as { text: string }).text;
    });

    after(async () => {
      await closeBrowser(browser);
    });

    async function newPage(): Promise<{ page: Page; requests: string[]; errors: string[] }> {
      // Tall enough for the whole card: a full-page capture beyond the viewport clips iframes.
      const page = await (browser as Browser).newPage({ viewport: { width: 800, height: 1000 } });
      const requests: string[] = [];
      const errors: string[] = [];
      page.on('request', (r) => requests.push(r.url()));
      page.on('pageerror', (e) => errors.push(e.message));
      return { page, requests, errors };
    }

    async function expectTitles(view: FrameLocator | Page, records: Record_[]): Promise<void> {
      await view.locator('ol.resultats').waitFor();
      expect(await view.locator('ol.resultats > li').count()).to.equal(records.length);
      for (const [i, record] of records.entries()) {
        expect((await view.locator(`#titre-${i}`).textContent())?.trim(), `titre ${i}`).to.equal(record.titre);
      }
    }

    it('renders company results sent by an MCP Apps host (ui/initialize, then ui/notifications/tool-result)', async () => {
      const args = { query: 'couverture', limit: 5 };
      const rest = await svc.rest('entreprises.search', args);
      expect(rest.status).to.equal(200);
      const records = rest.json.results as Record_[];
      expect(records.length, 'entreprises « couverture » dans les données de démonstration').to.be.greaterThan(1);
      // What the host forwards: the tools/call result of the card tool, as the service answers it.
      const result = (await (await connect('/api/mcp/assistant')).callTool({ name: 'annuaire_entreprises_rechercher', arguments: args })) as CallToolResult;
      expect(result.structuredContent).to.deep.equal(rest.json);

      const { page, requests, errors } = await newPage();
      try {
        await page.setContent(HOST_PAGE);
        await page.evaluate(([h, a, r]) => (window as any).demarrer(h, a, r), [html, args, result] as const);
        const view = page.frameLocator('#vue');
        await expectTitles(view, records);
        await page.waitForFunction(() => parseInt((document.getElementById('vue') as HTMLIFrameElement).style.height, 10) > 300);
        const received = (await page.evaluate(() => (window as any).recus)) as { method?: string; params?: any }[];
        const methods = received.map((m) => m.method);
        expect(methods[0]).to.equal('ui/initialize');
        expect(received[0]?.params?.protocolVersion).to.equal('2026-01-26');
        expect(methods).to.include('ui/notifications/initialized');
        expect(methods).to.include('ui/notifications/size-changed');
        const heading = view.getByRole('heading', { level: 1 });
        expect(await heading.textContent()).to.equal('Entreprises');
        const first = records[0] as Record_;
        const badges = view.locator('#titre-0 ~ ul.reperes > li');
        const badgeTexts = await badges.allTextContents();
        if (first.fields.libelle_naf) expect(badgeTexts).to.include(first.fields.libelle_naf);
        if (first.fields.ville) expect(badgeTexts.some((b) => b.startsWith(String(first.fields.ville)))).to.equal(true);
        expect(badgeTexts.includes('RGE')).to.equal(first.fields.est_rge === true);
        await expectRendered(page, 'carte-entreprises', [
          view.getByRole('heading', { name: first.titre, exact: true }).first(),
          view.getByRole('heading', { name: (records[records.length - 1] as Record_).titre, exact: true }).first(),
          badges.first(),
        ]);
        expect(errors, 'erreurs de script').to.deep.equal([]);
        expect(requests.filter((u) => /^(https?|wss?):/.test(u)), 'requêtes réseau').to.deep.equal([]);
      } finally {
        await page.close();
      }
    });

    it('renders notice results given through the OpenAI alias (window.openai.toolOutput, openai:set_globals)', async () => {
      const result = (await (await connect('/api/mcp/connectors')).callTool({ name: 'marches_rechercher', arguments: { limit: 5 } })) as CallToolResult;
      const data = result.structuredContent as { results: Record_[] };
      expect(data.results.length, 'avis dans les données de démonstration').to.be.greaterThan(1);

      const { page, requests, errors } = await newPage();
      try {
        await page.setContent(html);
        expect(await page.locator('main#carte').textContent()).to.include('Chargement des résultats');
        await page.evaluate((toolOutput) => {
          (window as any).openai = { toolOutput };
          window.dispatchEvent(new CustomEvent('openai:set_globals', { detail: { globals: { toolOutput } } }));
        }, data);
        await expectTitles(page, data.results);
        expect(await page.getByRole('heading', { level: 1 }).textContent()).to.equal('Avis de marchés');
        for (const [i, record] of data.results.entries()) {
          const badgeTexts = await page.locator(`#titre-${i} ~ ul.reperes > li`).allTextContents();
          expect(badgeTexts, record.titre).to.include(record.fields.ouvert ? 'Ouvert' : 'Clos');
          if (record.fields.acheteur) expect(badgeTexts).to.include(`Acheteur : ${String(record.fields.acheteur)}`);
          if (record.fields.date_limite) expect(badgeTexts.some((b) => b.startsWith('Réponse avant le '))).to.equal(true);
        }
        await expectRendered(page, 'carte-marches', [
          page.getByRole('heading', { name: (data.results[0] as Record_).titre, exact: true }).first(),
          page.locator('.repere-ouvert, .repere-clos').first(),
        ]);
        expect(errors, 'erreurs de script').to.deep.equal([]);
        expect(requests.filter((u) => /^(https?|wss?):/.test(u)), 'requêtes réseau').to.deep.equal([]);
      } finally {
        await page.close();
      }
    });

    it('renders the connectors’ consultation-file answers sent by an MCP Apps host: search, table of contents, reading page, and a download link opened through ui/open-link', async () => {
      const client = await connect('/api/mcp/connectors');
      const call = async (name: string, args: Record<string, unknown>): Promise<CallToolResult> => {
        const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
        expect(result.isError, `${name} ${JSON.stringify(result.content)}`).to.not.equal(true);
        return result;
      };
      const show = async (args: Record<string, unknown>, result: CallToolResult): Promise<{ page: Page; view: FrameLocator; requests: string[]; errors: string[] }> => {
        const opened = await newPage();
        await opened.page.setContent(HOST_PAGE);
        await opened.page.evaluate(([h, a, r]) => (window as any).demarrer(h, a, r), [html, args, result] as const);
        const view = opened.page.frameLocator('#vue');
        await view.locator('main#carte[aria-busy="false"]').waitFor();
        return { ...opened, view };
      };
      const pages: Page[] = [];
      try {
        const searchArgs = { query: 'ardoise' };
        const search = await call('marches_dce', searchArgs);
        const hits = (search.structuredContent as { results: { titre: string | null; filename: string }[] }).results;
        expect(hits.length, 'dossiers de démonstration citant « ardoise »').to.be.greaterThan(0);
        const shownSearch = await show(searchArgs, search);
        pages.push(shownSearch.page);
        expect(await shownSearch.view.getByRole('heading', { level: 1 }).textContent()).to.equal('Dossiers de consultation');
        expect(await shownSearch.view.locator('ol.resultats > li').count()).to.equal(hits.length);

        const tocArgs = { marche_id: DEMO_DCE_SHOWCASE, type: 'sommaire' };
        const toc = await call('marches_dce', tocArgs);
        const pieces = (toc.structuredContent as { fichiers: { filename: string }[] }).fichiers;
        const shownToc = await show(tocArgs, toc);
        pages.push(shownToc.page);
        expect(await shownToc.view.locator('table.pieces tbody tr').count()).to.equal(pieces.length);
        expect(await shownToc.view.locator('table.pieces tbody th').allTextContents()).to.deep.equal(pieces.map((p) => p.filename));

        const readArgs = { marche_id: DEMO_DCE_SHOWCASE, type: 'rc' };
        const reading = await call('marches_dce', readArgs);
        const page = reading.structuredContent as { filename: string; texte: string; page: number; pages_total: number };
        const shownReading = await show(readArgs, reading);
        pages.push(shownReading.page);
        expect(await shownReading.view.getByRole('heading', { level: 1 }).textContent()).to.equal(page.filename);
        expect(await shownReading.view.locator('.page-lecture').textContent()).to.include('RÈGLEMENT DE LA CONSULTATION');
        expect(await shownReading.view.locator('.reperes').textContent()).to.include(`Page ${page.page} sur ${page.pages_total}`);
        await expectRendered(shownReading.page, 'carte-dce-lecture', [shownReading.view.locator('.page-lecture')]);

        const linkArgs = { marche_id: DEMO_DCE_SHOWCASE };
        const link = await call('marches_dce_lien_obtenir', linkArgs);
        const url = (link.structuredContent as { download_url: string }).download_url;
        const shownLink = await show(linkArgs, link);
        pages.push(shownLink.page);
        const anchor = shownLink.view.locator('a#lien-telechargement');
        expect(await anchor.getAttribute('href')).to.equal(url);
        await anchor.click();
        await shownLink.page.waitForFunction(() => (window as any).recus.some((m: { method?: string }) => m.method === 'ui/open-link'));
        const received = (await shownLink.page.evaluate(() => (window as any).recus)) as { method?: string; params?: { url?: string } }[];
        expect(received.find((m) => m.method === 'ui/open-link')?.params).to.deep.equal({ url });
        for (const shown of [shownSearch, shownToc, shownReading, shownLink]) {
          expect(shown.errors, 'erreurs de script').to.deep.equal([]);
          expect(shown.requests.filter((u) => /^(https?|wss?):/.test(u)), 'requêtes réseau (le lien passe par l’hôte)').to.deep.equal([]);
        }
      } finally {
        for (const p of pages) await p.close();
      }
    });

    it('shows a company’s latest accounts, officers count and collective proceeding as badges, from imported RNE, ratios and BODACC files', async () => {
      await importFullCompany(svc.db);
      // The company officer: two public years, to show a turnover and its variation.
      const dir = mkdtempSync(join(tmpdir(), 'card-ratios-'));
      try {
        writeFileSync(
          join(dir, 'ratios.csv'),
          ratiosCsv([
            { siren: FULL_COMPANY.officerCompany.siren, cloture: '2023-12-31', ca: '400000', resultat: '10000' },
            { siren: FULL_COMPANY.officerCompany.siren, cloture: '2024-12-31', ca: '1234567', resultat: '20000' },
          ]),
        );
        await importFile(svc.db, IMPORTERS.ratios as never, join(dir, 'ratios.csv'), { progress: () => ({ update: () => undefined, stop: () => undefined }) });
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
      const args = { siren: FULL_COMPANY.siren };
      const result = (await (await connect('/api/mcp/connectors')).callTool({ name: 'annuaire_entreprises', arguments: args })) as CallToolResult;
      expect(result.isError).to.not.equal(true);
      const officer = (await svc.rest('entreprises.get', { siren: FULL_COMPANY.officerCompany.siren })).json as { results: Record_[] };

      const pages: Page[] = [];
      try {
        const shown = await newPage();
        pages.push(shown.page);
        await shown.page.setContent(HOST_PAGE);
        await shown.page.evaluate(([h, a, r]) => (window as any).demarrer(h, a, r), [html, args, result] as const);
        const view = shown.page.frameLocator('#vue');
        await view.locator('ol.resultats').waitFor();
        const badgeTexts = await view.locator('#titre-0 ~ ul.reperes > li').allTextContents();
        // The latest year (2025) is confidential: no older figure shown as current.
        expect(badgeTexts).to.include.members(['RGE', 'Comptes confidentiels', '2 dirigeants', 'Procédure collective publiée le 10/03/2026']);
        expect(badgeTexts.some((b) => b.startsWith('CA '))).to.equal(false);
        await expectRendered(shown.page, 'carte-entreprise-comptes', [view.locator('.repere-alerte'), view.locator('.repere-dirigeants')]);

        const written = await newPage();
        pages.push(written.page);
        await written.page.setContent(cardDocument(officer));
        await expectTitles(written.page, officer.results);
        expect(await written.page.locator('.repere-comptes').allTextContents()).to.deep.equal(['CA 2024 : 1,2 M€ (+208,6 %)']);
        expect(await written.page.locator('.repere-dirigeants, .repere-alerte').count()).to.equal(0);
        for (const { errors, requests } of [shown, written]) {
          expect(errors, 'erreurs de script').to.deep.equal([]);
          expect(requests.filter((u) => /^(https?|wss?):/.test(u)), 'requêtes réseau').to.deep.equal([]);
        }
      } finally {
        for (const p of pages) await p.close();
      }
    });

    it('renders data written into the page (script#donnees), RGE badge included, and never runs markup from the data', async () => {
      const rest = await svc.rest('entreprises.search', { query: 'couverture', rge: true, limit: 3 });
      expect(rest.status).to.equal(200);
      const data = rest.json as { results: Record_[] };
      expect(data.results.length, 'entreprises RGE « couverture » dans les données de démonstration').to.be.greaterThan(1);
      const hostile = '<img src=x onerror="window.__injecte=1"></script><script>window.__injecte=2</script>';
      (data.results[0] as Record_).titre = hostile;
      const { page, requests, errors } = await newPage();
      try {
        await page.setContent(cardDocument(data));
        await expectTitles(page, data.results);
        expect(await page.evaluate(() => (window as any).__injecte)).to.equal(undefined);
        expect(await page.locator('#carte img').count()).to.equal(0);
        expect(await page.locator('.repere-rge').count()).to.equal(data.results.length);
        await expectRendered(page, 'carte-entreprises-rge', [page.locator('#titre-0'), page.locator('.repere-rge').first()]);
        expect(errors, 'erreurs de script').to.deep.equal([]);
        expect(requests.filter((u) => /^(https?|wss?):/.test(u)), 'requêtes réseau').to.deep.equal([]);
      } finally {
        await page.close();
      }
    });
  });
});
