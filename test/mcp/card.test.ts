// The results card is a self-contained French HTML page (nothing from the network) whose renderer escapes every value of the data, announced on the connectors and assistant addresses only.
import { readFileSync } from 'node:fs';
import { runInNewContext } from 'node:vm';
import { expect } from 'chai';
import type { ProfileName, ToolEntry } from '../../src/contract/types.js';
import { CARD_CSP, CARD_MIME_TYPE, RESULTS_CARD, listCardResources, readCardResource, toolCardMeta } from '../../src/mcp/card.js';
import { CARD_SCRIPT, cardDocument, jsonForScript } from '../../src/mcp/card-template.js';

const catalogue = JSON.parse(readFileSync(new URL('../../generated/tools.json', import.meta.url), 'utf8')) as { tools: ToolEntry[] };
const listed = (profile: ProfileName): ToolEntry[] => catalogue.tools.filter((t) => t.status === 'active' && t.profiles.includes(profile));

/** The card's own script, run without a document: its pure renderer. */
function renderer(): (input: unknown) => string {
  const context: Record<string, unknown> = {};
  runInNewContext(CARD_SCRIPT, context);
  return context.rendreCarte as (input: unknown) => string;
}

function company(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: '123456789',
    titre: 'COUVERTURE DU LEON',
    resume: 'Travaux de couverture par éléments, Brest (29)',
    fields: { siren: '123456789', siret: null, libelle_naf: 'Travaux de couverture par éléments', code_naf: '43.91A', ville: 'Brest', departement: '29', est_rge: true, etat: 'active', ...overrides },
  };
}

function notice(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: '0b6f1b1e-0000-4000-8000-000000000001',
    titre: 'Réfection de la toiture de l’école',
    resume: 'Commune de Quimper, travaux',
    fields: { marche_id: '0b6f1b1e-0000-4000-8000-000000000001', annonce_id: '26-12345', acheteur: 'Commune de Quimper', departements: ['29', '56'], date_limite: '2026-03-12T12:00:00+01:00', ouvert: true, ...overrides },
  };
}

describe('results card document', () => {
  const html = cardDocument();

  it('is a French HTML5 document with a charset', () => {
    expect(html.startsWith('<!DOCTYPE html>')).to.equal(true);
    expect(html).to.match(/<html lang="fr">/);
    expect(html).to.match(/<meta charset="utf-8">/i);
    expect(html).to.include('<main id="carte"');
  });

  it('loads nothing from the network: no http(s) src or href, no @import, no url(), no external script or stylesheet', () => {
    expect(html).to.not.match(/\b(?:src|href)\s*=\s*["']?\s*(?:https?:)?\/\//i);
    expect(html).to.not.match(/@import/i);
    expect(html).to.not.match(/url\(/i);
    expect(html).to.not.match(/<link\b/i);
    expect(html).to.not.match(/<script[^>]*\bsrc=/i);
    expect(html).to.not.match(/https?:\/\//i);
  });

  it('keeps its inline script inside its element (no </script or <!-- in the script)', () => {
    expect(CARD_SCRIPT).to.not.match(/<\/script/i);
    expect(CARD_SCRIPT).to.not.include('<!--');
  });

  it('the served document carries no data', () => {
    expect(html).to.include('<script type="application/json" id="donnees">null</script>');
  });

  it('embeds data so that no value can close its script element, and reads back the same', () => {
    const data = { results: [company({}), { ...company(), titre: '</script><script>alert(1)</script> & \u2028' }] };
    const json = jsonForScript(data);
    expect(json).to.not.match(/[<>&\u2028\u2029]/);
    expect(JSON.parse(json)).to.deep.equal(data);
    const page = cardDocument(data);
    expect(page.match(/<\/script>/g)).to.have.length(2);
  });
});

describe('results card renderer', () => {
  const render = renderer();

  it('escapes HTML in titles, summaries and fields', () => {
    const out = render({
      results: [
        { ...company({ ville: '<b>Brest</b>', libelle_naf: '"Couverture" & zinc' }), titre: '<img src=x onerror=alert(1)>', resume: "<script>alert('x')</script>" },
      ],
      next_cursor: null,
      total_estimated: 1,
    });
    expect(out).to.not.include('<img');
    expect(out).to.not.include('<script');
    expect(out).to.not.include('<b>');
    expect(out).to.include('&lt;img src=x onerror=alert(1)&gt;');
    expect(out).to.include('&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;');
    expect(out).to.include('&quot;Couverture&quot; &amp; zinc');
    expect(out).to.include('&lt;b&gt;Brest&lt;/b&gt; (29)');
  });

  it('renders companies as an ordered list with headings and badges: NAF label, town (department), RGE', () => {
    const out = render({ results: [company(), company({ est_rge: false, etat: 'cessee' })], next_cursor: 'abc', total_estimated: 40 });
    expect(out).to.include('<h1>Entreprises</h1>');
    expect(out).to.include('2 résultats affichés sur environ 40.');
    expect(out).to.include('D’autres résultats suivent');
    expect(out.match(/<li class="resultat /g)).to.have.length(2);
    expect(out).to.include('<h2 id="titre-0">COUVERTURE DU LEON</h2>');
    expect(out).to.include('<li class="repere repere-activite">Travaux de couverture par éléments</li>');
    expect(out).to.include('<li class="repere repere-lieu">Brest (29)</li>');
    expect(out.match(/repere-rge/g)).to.have.length(1);
    expect(out).to.include('<li class="repere repere-clos">Cessée</li>');
    expect(out).to.include('SIREN 123456789');
  });

  it('gives a company its latest turnover (with its variation), a confidential latest year, its officers count and a dated collective proceeding', () => {
    const year = (exercice: string, ca: number | null, variation: number | null, confidential = false) => ({ exercice, comptes_confidentiels: confidential, chiffre_affaires: ca, variation_ca_pct: variation });
    const officer = { type: 'personne_physique', nom: 'KERDRAON', prenoms: 'Yannick', qualite: 'Gérant', annee_naissance: 1970 };
    const badges = (fields: Record<string, unknown>) => [...render({ results: [company(fields)] }).matchAll(/<li class="repere repere-(?:comptes|dirigeants|alerte)">([^<]*)<\/li>/g)].map((m) => m[1]);
    expect(
      badges({
        evolution_ca: [year('2024-12-31', 1_234_567, 5.3), year('2023-12-31', 1_172_000, null)],
        dirigeants: [officer, { ...officer, nom: 'LE GALL' }],
        procedures_collectives: [{ annonce_id: 'A2', date_parution: '2026-07-02' }, { annonce_id: 'A1', date_parution: '2026-03-10' }],
      }),
    ).to.deep.equal(['CA 2024 : 1,2 M€ (+5,3 %)', '2 dirigeants', 'Procédure collective publiée le 02/07/2026']);
    expect(badges({ evolution_ca: [year('2025-12-31', null, null, true), year('2024-12-31', 1_500_000, 25)], dirigeants: [officer] })).to.deep.equal(['Comptes confidentiels', '1 dirigeant']);
    // A latest year without a published turnover: the most recent one that has it; small and negative amounts.
    expect(badges({ evolution_ca: [year('2025-12-31', null, null), year('2024-12-31', 85_400, -12.5)] })).to.deep.equal(['CA 2024 : 85 k€ (−12,5 %)']);
    expect(badges({ evolution_ca: [year('2024-12-31', -3_400_000, null)] })).to.deep.equal(['CA 2024 : −3,4 M€']);
    expect(badges({ evolution_ca: [year('2024-12-31', 950, 0)] })).to.deep.equal(['CA 2024 : 950 € (0 %)']);
    expect(badges({ evolution_ca: [], dirigeants: [], procedures_collectives: [] })).to.deep.equal([]);
    expect(badges({})).to.deep.equal([]);
  });

  it('renders notices with buyer, departments, deadline and ouvert/clos', () => {
    const out = render({ results: [notice(), notice({ ouvert: false, departements: ['35'], date_limite: '2025-01-06' })], next_cursor: null, total_estimated: 2 });
    expect(out).to.include('<h1>Avis de marchés</h1>');
    expect(out).to.include('2 résultats affichés.');
    expect(out).to.include('Acheteur : Commune de Quimper');
    expect(out).to.include('Départements 29, 56');
    expect(out).to.include('Département 35');
    expect(out).to.include('Réponse avant le 12/03/2026 à 12 h 00');
    expect(out).to.include('Réponse avant le 06/01/2025<');
    expect(out).to.include('<li class="repere repere-ouvert">Ouvert</li>');
    expect(out).to.include('<li class="repere repere-clos">Clos</li>');
    expect(out).to.include('Avis 26-12345');
  });

  it('takes a whole tool result as well as its structured content', () => {
    const data = { results: [notice()], next_cursor: null, total_estimated: 1 };
    expect(render({ content: [{ type: 'text', text: 'texte' }], structuredContent: data })).to.equal(render(data));
  });

  it('says so when there is no result', () => {
    expect(render({ results: [], next_cursor: null, total_estimated: 0 })).to.include('Aucun résultat.');
  });

  it('shows a refused call as an alert with its message, escaped, and no list', () => {
    const out = render({ content: [{ type: 'text', text: 'Quota <dépassé>' }], isError: true });
    expect(out).to.include('role="alert"');
    expect(out).to.include('Quota &lt;dépassé&gt;');
    expect(out).to.not.include('<ol');
  });

  it('falls back on the readable text when the result has no list', () => {
    const out = render({ content: [{ type: 'text', text: 'code : 29 <x>' }], structuredContent: { code: '29' } });
    expect(out).to.include('<pre class="texte">code : 29 &lt;x&gt;</pre>');
  });
});

describe('results card renderer: consultation files', () => {
  const render = renderer();
  const piece = (overrides: Record<string, unknown> = {}) => ({ filename: 'Lot 1/CCTP.pdf', doc_type: 'cctp', lot: 1, pages_total: 2, pages_document: 3, taille: 1_572_864, content_type: 'application/pdf', ...overrides });
  const hit = (overrides: Record<string, unknown> = {}) => ({ acheteur: 'Commune de Quimper', doc_type: 'cctp', lieu: '29', titre: 'Réfection de la toiture', extrait: '… couverture en ardoise naturelle …', filename: 'CCTP.pdf', marche_id: 'm-1', page: 2, ...overrides });

  it('search: excerpts with buyer, department, kind of piece and reading page, all escaped', () => {
    const out = render({ ok: true, action: 'recherche_dce', query: 'ardoise', count: 2, results: [hit(), hit({ titre: '<img src=x>', extrait: '<b>x</b>' })], next_cursor: 'c', total_estimated: 9 });
    expect(out).to.include('<h1>Dossiers de consultation</h1>');
    expect(out).to.include('2 passages citant « ardoise » sur environ 9.');
    expect(out).to.include('D’autres résultats suivent');
    expect(out).to.include('<h2 id="titre-0">Réfection de la toiture</h2>');
    expect(out).to.include('Acheteur : Commune de Quimper');
    expect(out).to.include('<li class="repere repere-lieu">Département 29</li>');
    expect(out).to.include('<li class="repere repere-activite">CCTP</li>');
    expect(out).to.include('Page de lecture 2');
    expect(out).to.not.include('<img');
    expect(out).to.include('&lt;b&gt;x&lt;/b&gt;');
  });

  it('location: the pages of one file that cite the terms, titled by piece', () => {
    const out = render({ ok: true, action: 'localisation_dce', marche_id: 'm-1', titre: 'Réfection', query: 'ardoise', count: 1, results: [hit({ acheteur: null, lieu: null })] });
    expect(out).to.include('<h1>Dans le dossier de consultation</h1>');
    expect(out).to.include('1 page citant « ardoise ».');
    expect(out).to.include('<h2 id="titre-0">CCTP.pdf</h2>');
    expect(out).to.not.include('Acheteur');
  });

  it('reading page: the piece, its kind, page n of N, the text in paragraphs, escaped', () => {
    const out = render({ ok: true, action: 'lecture_dce', marche_id: 'm-1', titre: 'Réfection', filename: 'RC.pdf', doc_type: 'rc', page: 1, pages_total: 3, texte: 'Article 1\n\nLes offres <avant> le 12.', fichiers: [piece()] });
    expect(out).to.include('<h1>RC.pdf</h1>');
    expect(out).to.include('Règlement de la consultation');
    expect(out).to.include('Page 1 sur 3');
    expect(out).to.include('<p>Article 1</p><p>Les offres &lt;avant&gt; le 12.</p>');
    expect(out).to.include('Page suivante : 2.');
    expect(render({ ok: true, action: 'lecture_dce', filename: 'RC.pdf', doc_type: 'rc', page: 3, pages_total: 3, texte: 'fin' })).to.not.include('Page suivante');
  });

  it('table of contents: one row per piece with kind, lot, reading pages and size', () => {
    const out = render({ ok: true, action: 'sommaire_dce', marche_id: 'm-1', titre: 'Réfection', fichiers: [piece(), piece({ filename: 'plan.dwg', doc_type: 'plan', lot: null, pages_total: 0, pages_document: 0, taille: 800 })], hint: 'Lire une pièce.' });
    expect(out).to.include('<h1>Dossier de consultation</h1>');
    expect(out).to.include('<caption>2 pièces</caption>');
    expect(out).to.include('<th scope="row">Lot 1/CCTP.pdf</th><td>CCTP</td><td>1</td><td>2 pages</td><td>1,5 Mo</td>');
    expect(out).to.include('<th scope="row">plan.dwg</th><td>Plan</td><td></td><td>sans texte</td><td>800 o</td>');
  });

  it('download: an https link only, the expiry in minutes and a warning not to share it', () => {
    const answer = { ok: true, action: 'telechargement_dce', marche_id: 'm-1', filename: 'dossier.zip', download_url: 'https://exemple.fr/dce/telechargement/abc', content_type: 'application/zip', expires_in: 600, count: 4 };
    const out = render(answer);
    expect(out).to.include('<a class="lien" id="lien-telechargement" href="https://exemple.fr/dce/telechargement/abc" target="_blank" rel="noopener noreferrer">Télécharger dossier.zip</a>');
    expect(out).to.include('valable 10 minutes');
    expect(out).to.include('dossier.zip (4 pièces)');
    expect(render({ ...answer, download_url: 'javascript:alert(1)' })).to.not.include('<a ');
    expect(render({ ...answer, download_url: 'https://x.fr/"onmouseover="y' })).to.include('href="https://x.fr/&quot;onmouseover=&quot;y"');
  });
});

describe('results card announcement', () => {
  const cardTools = catalogue.tools.filter((t) => t.card.length > 0);

  it('the catalogue has card tools', () => {
    expect(cardTools.length).to.be.greaterThan(0);
  });

  it('on connectors, every tool carries the card (the spec: four read tools with a results card); on the assistant, the company and market searches do', () => {
    const connectors = listed('connectors');
    expect(connectors.map((t) => t.name).sort()).to.deep.equal(['annuaire_entreprises', 'marches_dce', 'marches_dce_lien_obtenir', 'marches_rechercher']);
    for (const tool of connectors) expect(tool.card, tool.name).to.include('connectors');
    const assistantCards = listed('assistant').filter((t) => t.card.includes('assistant')).map((t) => t.name);
    expect(assistantCards).to.include.members(['annuaire_entreprises', 'annuaire_entreprises_rechercher', 'marches_rechercher']);
  });

  for (const profile of ['connectors', 'assistant'] as const) {
    it(`on ${profile}: a card tool links the card (MCP Apps and OpenAI alias), another tool does not`, () => {
      for (const tool of catalogue.tools) {
        const meta = toolCardMeta(tool, profile);
        if (tool.card.includes(profile)) expect(meta, tool.name).to.deep.equal({ ui: { resourceUri: RESULTS_CARD.uri, csp: CARD_CSP }, 'openai/outputTemplate': RESULTS_CARD.uri });
        else expect(meta, tool.name).to.equal(undefined);
      }
    });

    it(`on ${profile}: the card is listed and readable, any other URI is not`, () => {
      const resources = listCardResources(profile, listed(profile));
      expect(resources.map((r) => r.uri)).to.deep.equal([RESULTS_CARD.uri]);
      expect(resources[0]).to.include({ mimeType: CARD_MIME_TYPE, name: RESULTS_CARD.name, title: RESULTS_CARD.title });
      const read = readCardResource(profile, listed(profile), RESULTS_CARD.uri);
      expect(read?.contents).to.have.length(1);
      expect(read?.contents[0]).to.include({ uri: RESULTS_CARD.uri, mimeType: CARD_MIME_TYPE, text: cardDocument() });
      expect(read?.contents[0]?._meta).to.deep.equal({ ui: { csp: { connectDomains: [], resourceDomains: [] }, prefersBorder: true } });
      expect(readCardResource(profile, listed(profile), 'ui://cartes/autre.html')).to.equal(null);
    });
  }

  it('on /api/mcp (full): no tool links a card, no resource is listed or readable', () => {
    for (const tool of catalogue.tools) expect(toolCardMeta(tool, 'full'), tool.name).to.equal(undefined);
    expect(listCardResources('full', listed('full'))).to.deep.equal([]);
    expect(readCardResource('full', listed('full'), RESULTS_CARD.uri)).to.equal(null);
  });

  it('an address without a card tool lists no card', () => {
    const noCard = listed('assistant').filter((t) => !t.card.includes('assistant'));
    expect(listCardResources('assistant', noCard)).to.deep.equal([]);
    expect(readCardResource('assistant', noCard, RESULTS_CARD.uri)).to.equal(null);
  });
});
