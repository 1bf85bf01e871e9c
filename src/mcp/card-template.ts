// The results card's document: one self-contained HTML page (inline CSS and script, no
// network at all) that renders a search result (`results[]` of `{id, titre, resume, fields}`)
// as a plain list. The data comes from the host: the MCP Apps `ui/notifications/tool-result`
// notification (postMessage), the OpenAI alias `window.openai.toolOutput`, or the JSON of the
// `<script id="donnees">` element.

/**
 * The card's script, plain ES2017 run by the browser as is. Its top-level functions
 * (`echapper`, `rendreCarte`) are pure: they build the markup as a string, every value from
 * the data going through `echapper`; the start-up part runs only where there is a document.
 */
export const CARD_SCRIPT = String.raw`
'use strict';

function echapper(valeur) {
  return String(valeur === null || valeur === undefined ? '' : valeur).replace(/[&<>"']/g, function (c) {
    return { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c];
  });
}

function dateFr(iso) {
  var m = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2}))?/.exec(String(iso || ''));
  if (!m) return String(iso || '');
  return m[3] + '/' + m[2] + '/' + m[1] + (m[4] && !(m[4] === '00' && m[5] === '00') ? ' à ' + m[4] + ' h ' + m[5] : '');
}

function repere(texte, sorte) {
  return '<li class="repere repere-' + sorte + '">' + echapper(texte) + '</li>';
}

function sorteDe(champs) {
  if (champs && typeof champs === 'object') {
    if ('siren' in champs && ('libelle_naf' in champs || 'code_naf' in champs)) return 'entreprise';
    if ('marche_id' in champs || 'date_limite' in champs) return 'marche';
  }
  return 'autre';
}

/** « 1,2 M€ », « 85 k€ », « −3,4 M€ »: an amount short enough for a badge. */
function montantCourt(n) {
  var abs = Math.abs(n);
  var signe = n < 0 ? '−' : '';
  function une(x) { return x.toFixed(1).replace(/\.0$/, '').replace('.', ','); }
  if (abs >= 1e9) return signe + une(abs / 1e9) + ' Md€';
  if (abs >= 1e6) return signe + une(abs / 1e6) + ' M€';
  if (abs >= 1e3) return signe + Math.round(abs / 1e3) + ' k€';
  return signe + Math.round(abs) + ' €';
}

function pourcent(v) {
  return (v > 0 ? '+' : v < 0 ? '−' : '') + String(Math.abs(v)).replace('.', ',') + ' %';
}

/**
 * The latest published turnover (newest year first on the record); a confidential latest
 * year says so rather than showing an older figure as if it were current.
 */
function repereComptes(annees) {
  if (!Array.isArray(annees) || !annees.length) return null;
  if (annees[0] && annees[0].comptes_confidentiels === true) return repere('Comptes confidentiels', 'comptes');
  for (var i = 0; i < annees.length; i++) {
    var a = annees[i];
    if (a && typeof a.chiffre_affaires === 'number') {
      var variation = typeof a.variation_ca_pct === 'number' ? ' (' + pourcent(a.variation_ca_pct) + ')' : '';
      return repere('CA ' + String(a.exercice || '').slice(0, 4) + ' : ' + montantCourt(a.chiffre_affaires) + variation, 'comptes');
    }
  }
  return null;
}

function reperesEntreprise(f) {
  var out = [];
  if (f.libelle_naf || f.code_naf) out.push(repere(f.libelle_naf || f.code_naf, 'activite'));
  var lieu = [f.ville, f.departement ? '(' + f.departement + ')' : ''].filter(Boolean).join(' ');
  if (lieu) out.push(repere(lieu, 'lieu'));
  if (f.est_rge === true) out.push(repere('RGE', 'rge'));
  if (f.etat === 'cessee') out.push(repere('Cessée', 'clos'));
  var comptes = repereComptes(f.evolution_ca);
  if (comptes) out.push(comptes);
  if (Array.isArray(f.dirigeants) && f.dirigeants.length) out.push(repere(pluriel(f.dirigeants.length, 'dirigeant'), 'dirigeants'));
  var procedure = Array.isArray(f.procedures_collectives) ? f.procedures_collectives[0] : null;
  if (procedure) out.push(repere('Procédure collective publiée le ' + dateFr(procedure.date_parution), 'alerte'));
  return out;
}

function reperesMarche(f) {
  var out = [];
  if (f.acheteur) out.push(repere('Acheteur : ' + f.acheteur, 'acheteur'));
  var depts = Array.isArray(f.departements) ? f.departements.filter(Boolean) : [];
  if (depts.length) out.push(repere((depts.length > 1 ? 'Départements ' : 'Département ') + depts.join(', '), 'lieu'));
  if (f.date_limite) out.push(repere('Réponse avant le ' + dateFr(f.date_limite), 'date'));
  if (typeof f.ouvert === 'boolean') out.push(repere(f.ouvert ? 'Ouvert' : 'Clos', f.ouvert ? 'ouvert' : 'clos'));
  return out;
}

function identifiant(sorte, f, id) {
  if (sorte === 'entreprise') return f.siret ? 'SIRET ' + f.siret : 'SIREN ' + (f.siren || id);
  if (sorte === 'marche') return 'Avis ' + (f.annonce_id || id);
  return id ? String(id) : '';
}

function texteDe(resultat) {
  var blocs = resultat && Array.isArray(resultat.content) ? resultat.content : [];
  return blocs.filter(function (b) { return b && b.type === 'text'; }).map(function (b) { return String(b.text); }).join('\n');
}

var TYPES_PIECE = {
  rc: 'Règlement de la consultation', ccap: 'CCAP', cctp: 'CCTP', bpu: 'Bordereau des prix (BPU)', dpgf: 'DPGF',
  dqe: 'Détail quantitatif estimatif (DQE)', ae: 'Acte d’engagement', dc1: 'Lettre de candidature (DC1)', dc2: 'Déclaration du candidat (DC2)',
  dume: 'DUME', questions_reponses: 'Questions et réponses', cadre_reponse: 'Cadre de réponse', plan: 'Plan', annexe: 'Annexe', autre: 'Autre pièce'
};

function typePiece(code) {
  return TYPES_PIECE[code] || String(code || '');
}

function taille(octets) {
  var n = Number(octets) || 0;
  if (n < 1024) return n + ' o';
  if (n < 1048576) return (n / 1024).toFixed(0) + ' Ko';
  return (n / 1048576).toFixed(1).replace('.', ',') + ' Mo';
}

function pluriel(n, mot) {
  return n + ' ' + mot + (n > 1 ? 's' : '');
}

/** Excerpts of consultation files: the search (several files) or the location of terms (one file). */
function extraitsDce(d) {
  var liste = Array.isArray(d.results) ? d.results : [];
  var recherche = d.action === 'recherche_dce';
  var compte = liste.length === 0 ? 'Aucun passage ne cite « ' + (d.query || '') + ' ».'
    : pluriel(liste.length, recherche ? 'passage' : 'page') + ' citant « ' + (d.query || '') + ' »'
      + (typeof d.total_estimated === 'number' && d.total_estimated > liste.length ? ' sur environ ' + d.total_estimated : '') + '.';
  if (d.next_cursor) compte += ' D’autres résultats suivent (page suivante).';
  var items = liste.map(function (r, i) {
    var reperes = [];
    if (recherche && r.acheteur) reperes.push(repere('Acheteur : ' + r.acheteur, 'acheteur'));
    if (recherche && r.lieu) reperes.push(repere('Département ' + r.lieu, 'lieu'));
    if (r.doc_type) reperes.push(repere(typePiece(r.doc_type), 'activite'));
    reperes.push(repere('Page de lecture ' + r.page, 'date'));
    return '<li class="resultat resultat-dce"><article aria-labelledby="titre-' + i + '">'
      + '<h2 id="titre-' + i + '">' + echapper(recherche ? (r.titre || r.filename || 'Dossier sans titre') : r.filename) + '</h2>'
      + '<p class="resume extrait">' + echapper(r.extrait) + '</p>'
      + '<ul class="reperes" aria-label="Repères">' + reperes.join('') + '</ul>'
      + (recherche ? '<p class="ident">' + echapper(r.filename) + '</p>' : '')
      + '</article></li>';
  });
  return '<h1>' + (recherche ? 'Dossiers de consultation' : 'Dans le dossier de consultation') + '</h1>'
    + (!recherche && d.titre ? '<p class="sous-titre">' + echapper(d.titre) + '</p>' : '')
    + '<p class="compte">' + echapper(compte) + '</p>'
    + (items.length ? '<ol class="resultats">' + items.join('') + '</ol>' : '');
}

function tablePieces(fichiers) {
  if (!Array.isArray(fichiers) || !fichiers.length) return '';
  var lignes = fichiers.map(function (f) {
    return '<tr><th scope="row">' + echapper(f.filename) + '</th><td>' + echapper(typePiece(f.doc_type)) + '</td><td>'
      + (f.lot === null || f.lot === undefined ? '' : echapper(f.lot)) + '</td><td>' + echapper(f.pages_total ? pluriel(f.pages_total, 'page') : 'sans texte')
      + '</td><td>' + echapper(taille(f.taille)) + '</td></tr>';
  });
  return '<table class="pieces"><caption>' + pluriel(fichiers.length, 'pièce') + '</caption>'
    + '<thead><tr><th scope="col">Pièce</th><th scope="col">Nature</th><th scope="col">Lot</th><th scope="col">Lecture</th><th scope="col">Taille</th></tr></thead>'
    + '<tbody>' + lignes.join('') + '</tbody></table>';
}

function lectureDce(d) {
  var paragraphes = String(d.texte || '').split(/\n{2,}/).filter(function (p) { return p.trim(); });
  var reperes = [repere(typePiece(d.doc_type), 'activite'), repere('Page ' + d.page + ' sur ' + d.pages_total, 'date')];
  return '<h1>' + echapper(d.filename) + '</h1>'
    + (d.titre ? '<p class="sous-titre">' + echapper(d.titre) + '</p>' : '')
    + '<ul class="reperes" aria-label="Repères">' + reperes.join('') + '</ul>'
    + '<section class="page-lecture" aria-label="Texte de la page">'
    + (paragraphes.length ? paragraphes.map(function (p) { return '<p>' + echapper(p) + '</p>'; }).join('') : '<p class="compte">Page sans texte.</p>')
    + '</section>'
    + (d.page < d.pages_total ? '<p class="compte">Page suivante : ' + (d.page + 1) + '.</p>' : '');
}

function lienSur(url) {
  return /^https?:\/\//i.test(String(url || '')) ? String(url) : '';
}

function telechargementDce(d) {
  var url = lienSur(d.download_url);
  var minutes = Math.max(1, Math.round((Number(d.expires_in) || 0) / 60));
  return '<h1>Téléchargement</h1>'
    + (d.titre ? '<p class="sous-titre">' + echapper(d.titre) + '</p>' : '')
    + '<p>' + echapper(d.filename) + (typeof d.count === 'number' ? ' (' + pluriel(d.count, 'pièce') + ')' : '') + '</p>'
    + (url ? '<p><a class="lien" id="lien-telechargement" href="' + echapper(url) + '" target="_blank" rel="noopener noreferrer">Télécharger ' + echapper(d.filename) + '</a></p>' : '')
    + '<p class="compte">Lien personnel, valable ' + pluriel(minutes, 'minute') + ' : ne pas le partager.</p>'
    + tablePieces(d.fichiers);
}

/** A dce.read or dce.download answer, by its action. */
function rendreDce(d) {
  if (d.action === 'recherche_dce' || d.action === 'localisation_dce') return extraitsDce(d);
  if (d.action === 'lecture_dce') return lectureDce(d);
  if (d.action === 'telechargement_dce') return telechargementDce(d);
  return '<h1>Dossier de consultation</h1>' + (d.titre ? '<p class="sous-titre">' + echapper(d.titre) + '</p>' : '')
    + (d.hint ? '<p class="compte">' + echapper(d.hint) + '</p>' : '') + tablePieces(d.fichiers);
}

/** A tool result ({structuredContent, content, isError}) or the bare structured data. */
function rendreCarte(entree) {
  var resultatOutil = entree && typeof entree === 'object' && ('structuredContent' in entree || Array.isArray(entree.content) || 'isError' in entree);
  var donnees = resultatOutil ? entree.structuredContent : entree;
  if (resultatOutil && entree.isError) {
    return '<h1>Recherche refusée</h1><p class="erreur" role="alert">' + echapper(texteDe(entree) || 'Le service a refusé la recherche.') + '</p>';
  }
  if (donnees && typeof donnees.action === 'string' && /_dce$/.test(donnees.action)) return rendreDce(donnees);
  var liste = donnees && Array.isArray(donnees.results) ? donnees.results : null;
  if (!liste) {
    var texte = resultatOutil ? texteDe(entree) : '';
    return '<h1>Résultats</h1>' + (texte ? '<pre class="texte">' + echapper(texte) + '</pre>' : '<p class="compte">Aucune donnée à afficher.</p>');
  }
  var sortes = liste.map(function (r) { return sorteDe(r && r.fields); });
  var titre = sortes.length && sortes.every(function (s) { return s === 'entreprise'; }) ? 'Entreprises'
    : sortes.length && sortes.every(function (s) { return s === 'marche'; }) ? 'Avis de marchés' : 'Résultats';
  var compte = liste.length === 0 ? 'Aucun résultat.'
    : liste.length + (liste.length > 1 ? ' résultats affichés' : ' résultat affiché')
      + (typeof donnees.total_estimated === 'number' && donnees.total_estimated > liste.length ? ' sur environ ' + donnees.total_estimated : '') + '.';
  if (donnees.next_cursor) compte += ' D’autres résultats suivent (page suivante).';
  var items = liste.map(function (r, i) {
    var f = r && r.fields && typeof r.fields === 'object' ? r.fields : {};
    var sorte = sortes[i];
    var reperes = sorte === 'entreprise' ? reperesEntreprise(f) : sorte === 'marche' ? reperesMarche(f) : [];
    var ident = identifiant(sorte, f, r && r.id);
    return '<li class="resultat resultat-' + sorte + '"><article aria-labelledby="titre-' + i + '">'
      + '<h2 id="titre-' + i + '">' + echapper((r && r.titre) || 'Sans titre') + '</h2>'
      + (r && r.resume ? '<p class="resume">' + echapper(r.resume) + '</p>' : '')
      + (reperes.length ? '<ul class="reperes" aria-label="Repères">' + reperes.join('') + '</ul>' : '')
      + (ident ? '<p class="ident">' + echapper(ident) + '</p>' : '')
      + '</article></li>';
  });
  return '<h1>' + titre + '</h1><p class="compte">' + echapper(compte) + '</p>'
    + (items.length ? '<ol class="resultats">' + items.join('') + '</ol>' : '');
}

if (typeof window !== 'undefined' && typeof document !== 'undefined') (function () {
  var racine = document.getElementById('carte');
  var hote = window.parent && window.parent !== window ? window.parent : null;
  var ID_INIT = 'carte-init-1';

  function envoyer(message) {
    if (hote) hote.postMessage(message, '*');
  }
  function afficher(entree) {
    if (!racine || entree === null || entree === undefined) return;
    racine.innerHTML = rendreCarte(entree);
    racine.setAttribute('aria-busy', 'false');
  }
  var demandes = 0;
  // A link leaves the sandboxed frame through the host: MCP Apps ui/open-link, or the OpenAI alias.
  document.addEventListener('click', function (ev) {
    var lien = ev.target && ev.target.closest ? ev.target.closest('a.lien') : null;
    if (!lien) return;
    var url = lien.getAttribute('href');
    if (window.openai && typeof window.openai.openExternal === 'function') {
      ev.preventDefault();
      window.openai.openExternal({ href: url });
    } else if (hote) {
      ev.preventDefault();
      envoyer({ jsonrpc: '2.0', id: 'carte-lien-' + (++demandes), method: 'ui/open-link', params: { url: url } });
    }
  });
  function appliquerContexte(contexte) {
    if (!contexte || typeof contexte !== 'object') return;
    if (contexte.theme === 'light' || contexte.theme === 'dark') document.documentElement.setAttribute('data-theme', contexte.theme);
    var variables = contexte.styles && contexte.styles.variables;
    if (variables && typeof variables === 'object') {
      Object.keys(variables).forEach(function (cle) {
        if (/^--[a-z0-9-]+$/.test(cle) && typeof variables[cle] === 'string') document.documentElement.style.setProperty(cle, variables[cle]);
      });
    }
  }

  // 1. Data written into the page (a host that fills the template, or a test).
  var ecrites = document.getElementById('donnees');
  if (ecrites) {
    try {
      afficher(JSON.parse(ecrites.textContent || 'null'));
    } catch (e) {
      /* not JSON: wait for the host */
    }
  }

  // 2. The OpenAI alias: window.openai.toolOutput, updated with the openai:set_globals event.
  function depuisOpenai() {
    if (window.openai && window.openai.toolOutput) afficher(window.openai.toolOutput);
  }
  depuisOpenai();
  window.addEventListener('openai:set_globals', function (ev) {
    var globals = ev && ev.detail && ev.detail.globals;
    if (globals && globals.toolOutput) afficher(globals.toolOutput);
    else depuisOpenai();
  });

  // 3. MCP Apps: JSON-RPC over postMessage with the host (the parent window only).
  window.addEventListener('message', function (ev) {
    if (ev.source !== window.parent) return;
    var m = ev.data;
    if (!m || typeof m !== 'object' || m.jsonrpc !== '2.0') return;
    if (m.id === ID_INIT && !m.method) {
      if (m.result) {
        appliquerContexte(m.result.hostContext);
        envoyer({ jsonrpc: '2.0', method: 'ui/notifications/initialized', params: {} });
      }
      return;
    }
    if (m.method === 'ui/notifications/tool-result') afficher(m.params);
    else if (m.method === 'ui/notifications/host-context-changed') appliquerContexte(m.params);
    else if ((m.method === 'ui/resource-teardown' || m.method === 'ping') && m.id !== undefined) envoyer({ jsonrpc: '2.0', id: m.id, result: {} });
  });
  envoyer({
    jsonrpc: '2.0',
    id: ID_INIT,
    method: 'ui/initialize',
    params: { protocolVersion: '2026-01-26', appInfo: { name: 'carte-resultats', version: '1.0.0' }, appCapabilities: { availableDisplayModes: ['inline'] } },
  });
  if (hote && typeof ResizeObserver !== 'undefined') {
    var dernier = '';
    // The body's own height (the root's scrollHeight never goes below the frame's height).
    new ResizeObserver(function () {
      var taille = { width: Math.ceil(document.documentElement.scrollWidth), height: Math.ceil(document.body.getBoundingClientRect().height) };
      var cle = taille.width + 'x' + taille.height;
      if (cle === dernier) return;
      dernier = cle;
      envoyer({ jsonrpc: '2.0', method: 'ui/notifications/size-changed', params: taille });
    }).observe(document.body);
  }
})();
`;

const CARD_STYLE = `
:root {
  color-scheme: light dark;
  --fond: var(--color-background-primary, #ffffff);
  --fond-carte: var(--color-background-secondary, #f6f7f9);
  --texte: var(--color-text-primary, #1b1f24);
  --texte-doux: var(--color-text-secondary, #4f5b67);
  --bord: var(--color-border-primary, #d5dbe1);
  --vert-fond: #e3f4e8; --vert-texte: #15602f;
  --gris-fond: #eceff2; --gris-texte: #3d4852;
  --bleu-fond: #e6eefb; --bleu-texte: #1d4b8f;
  --ambre-fond: #fbf0dc; --ambre-texte: #7a4b00;
  --rayon: var(--border-radius-md, 8px);
  font-family: var(--font-sans, system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif);
}
:root[data-theme="dark"] {
  --fond: var(--color-background-primary, #16191d);
  --fond-carte: var(--color-background-secondary, #1f2329);
  --texte: var(--color-text-primary, #eef1f4);
  --texte-doux: var(--color-text-secondary, #aab4be);
  --bord: var(--color-border-primary, #363d46);
  --vert-fond: #173824; --vert-texte: #9be3b1;
  --gris-fond: #2b3139; --gris-texte: #ccd3da;
  --bleu-fond: #1b2c47; --bleu-texte: #a9c6f5;
  --ambre-fond: #3b2c10; --ambre-texte: #f3cf8a;
}
* { box-sizing: border-box; }
html, body { margin: 0; padding: 0; background: var(--fond); color: var(--texte); }
body { font-size: 15px; line-height: 1.45; }
main { padding: 16px; max-width: 860px; }
h1 { font-size: 1.2rem; margin: 0 0 4px; }
.compte { margin: 0 0 12px; color: var(--texte-doux); font-size: 0.9rem; }
.resultats { list-style: none; margin: 0; padding: 0; display: grid; gap: 10px; }
.resultat article { background: var(--fond-carte); border: 1px solid var(--bord); border-radius: var(--rayon); padding: 12px 14px; }
.resultat h2 { font-size: 1rem; margin: 0 0 4px; overflow-wrap: anywhere; }
.resume { margin: 0 0 8px; color: var(--texte-doux); font-size: 0.9rem; overflow-wrap: anywhere; }
.reperes { list-style: none; margin: 0; padding: 0; display: flex; flex-wrap: wrap; gap: 6px; }
.repere { font-size: 0.78rem; line-height: 1.2; padding: 3px 8px; border-radius: 999px; background: var(--gris-fond); color: var(--gris-texte); }
.repere-activite, .repere-acheteur { background: var(--bleu-fond); color: var(--bleu-texte); }
.repere-rge, .repere-ouvert { background: var(--vert-fond); color: var(--vert-texte); font-weight: 600; }
.repere-date { background: var(--ambre-fond); color: var(--ambre-texte); }
.repere-clos { font-weight: 600; }
.repere-alerte { background: var(--ambre-fond); color: var(--ambre-texte); font-weight: 600; }
.ident { margin: 8px 0 0; font-size: 0.75rem; color: var(--texte-doux); }
.erreur { padding: 10px 12px; border-radius: var(--rayon); background: var(--ambre-fond); color: var(--ambre-texte); }
.texte { white-space: pre-wrap; font-size: 0.85rem; }
.sous-titre { margin: 0 0 8px; color: var(--texte-doux); overflow-wrap: anywhere; }
.extrait { font-style: italic; }
.page-lecture { margin-top: 12px; background: var(--fond-carte); border: 1px solid var(--bord); border-radius: var(--rayon); padding: 4px 14px; }
.page-lecture p { margin: 10px 0; white-space: pre-wrap; overflow-wrap: anywhere; }
.pieces { width: 100%; border-collapse: collapse; margin-top: 12px; font-size: 0.85rem; }
.pieces caption { text-align: left; color: var(--texte-doux); padding-bottom: 4px; }
.pieces th, .pieces td { text-align: left; padding: 5px 8px; border-bottom: 1px solid var(--bord); overflow-wrap: anywhere; }
.pieces thead th { font-weight: 600; }
.pieces tbody th { font-weight: 400; }
.lien { display: inline-block; padding: 8px 14px; border-radius: var(--rayon); background: var(--bleu-fond); color: var(--bleu-texte); font-weight: 600; text-decoration: none; }
.attente { color: var(--texte-doux); }
@media (prefers-color-scheme: dark) {
  :root:not([data-theme="light"]) {
    --fond: var(--color-background-primary, #16191d);
    --fond-carte: var(--color-background-secondary, #1f2329);
    --texte: var(--color-text-primary, #eef1f4);
    --texte-doux: var(--color-text-secondary, #aab4be);
    --bord: var(--color-border-primary, #363d46);
    --vert-fond: #173824; --vert-texte: #9be3b1;
    --gris-fond: #2b3139; --gris-texte: #ccd3da;
    --bleu-fond: #1b2c47; --bleu-texte: #a9c6f5;
    --ambre-fond: #3b2c10; --ambre-texte: #f3cf8a;
  }
}
`;

/**
 * JSON for the inside of a `<script type="application/json">` element: `<`, `>`, `&` and the
 * two JavaScript line separators written as escapes, so no value can close the element.
 */
export function jsonForScript(value: unknown): string {
  return (JSON.stringify(value ?? null) ?? 'null')
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

/**
 * The card's HTML document. Served as is (`data` absent: the host brings the result); with
 * `data` (a tool result or its structured content), the page renders it on load.
 */
export function cardDocument(data: unknown = null): string {
  return `<!DOCTYPE html>
<html lang="fr">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Résultats de recherche</title>
<style>${CARD_STYLE}</style>
</head>
<body>
<main id="carte" aria-live="polite" aria-busy="true">
<p class="attente">Chargement des résultats…</p>
</main>
<script type="application/json" id="donnees">${jsonForScript(data)}</script>
<script>${CARD_SCRIPT}</script>
</body>
</html>
`;
}
