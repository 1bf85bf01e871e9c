// The company's permalink page (`/entreprises/<siren>`, `/etablissements/<siret>`): the
// `entreprises.get` record and the awards it won, as a readable French page. Pure
// presentation: no call, no clock; every value from the data is escaped. The chart is inline
// SVG (no script, no external resource) so the page works under a strict CSP.
import type { components } from '../../generated/openapi-types.js';
import { escapeHtml, page } from '../auth/pages.js';
import { euros } from '../platform/french-numbers.js';

type Schemas = components['schemas'];
export type CompanyRecord = Schemas['CompanyRecord'];
export type AwardRecord = Schemas['AwardRecord'];
type Year = Schemas['CompanyYearAccounts'];
type Officer = Schemas['CompanyOfficer'];
type Proceeding = Schemas['CollectiveProceeding'];

/** The awards section's data: the most recent awards won, or why they could not be read. */
export type CompanyAwards = { read: true; records: AwardRecord[]; more: boolean } | { read: false; reason: string };

/** How many awards the page lists (the brand report has the rest). */
export const PAGE_AWARDS = 10;

export const COMPANY_STYLE = `
  main.wide h1 { margin-bottom: .4rem; }
  section { margin-top: 1.8rem; }
  h3 { font-size: 1rem; margin: 1rem 0 .3rem; }
  h2 { font-size: 1.1rem; margin: 0 0 .6rem; padding-bottom: .3rem; border-bottom: 2px solid #e3e8ef; }
  dl.fiche { display: grid; grid-template-columns: minmax(9rem, max-content) 1fr; gap: .35rem 1.2rem; margin: 0; }
  dl.fiche dt { font-weight: 600; color: #3d4756; }
  dl.fiche dd { margin: 0; }
  ul.liste { padding-left: 1.2rem; margin: .4rem 0; }
  ul.liste li { margin: .35rem 0; line-height: 1.45; }
  .etat { display: inline-block; padding: .1rem .55rem; border-radius: 999px; font-size: .85rem; font-weight: 600; }
  .etat-active { background: #e3f4e8; color: #15602f; }
  .etat-cessee { background: #fdecea; color: #8a1c12; }
  figure.graphique { margin: .6rem 0 0; }
  figure.graphique svg { display: block; max-width: 100%; height: auto; }
  figure.graphique figcaption { font-size: .85rem; color: #5b6678; margin-top: .3rem; }
  .legende span { display: inline-block; width: .8rem; height: .8rem; border-radius: 2px; vertical-align: -.1rem; margin: 0 .3rem 0 .8rem; }
  .legende .ca { background: #1f5fbf; } .legende .rn { background: #2e8b57; } .legende .rn-negatif { background: #c0392b; }
  td.nombre, th.nombre { text-align: right; white-space: nowrap; }
  td.confidentiel { color: #5b6678; font-style: italic; }
  a { color: #1f5fbf; }
`;



/** A compact amount for the chart's axis (« 1,5 M€ », « 80 k€ »). */
function compactEuros(amount: number): string {
  const abs = Math.abs(amount);
  const sign = amount < 0 ? '−' : '';
  const one = (n: number) => n.toFixed(1).replace(/\.0$/, '').replace('.', ',');
  if (abs >= 1e9) return `${sign}${one(abs / 1e9)} Md€`;
  if (abs >= 1e6) return `${sign}${one(abs / 1e6)} M€`;
  if (abs >= 1e3) return `${sign}${Math.round(abs / 1e3)} k€`;
  return `${sign}${Math.round(abs)} €`;
}

/** « +25 % », « −99,1 % », « 0 % ». */
export function percent(value: number): string {
  const sign = value > 0 ? '+' : value < 0 ? '−' : '';
  return `${sign}${String(Math.abs(value)).replace('.', ',')} %`;
}

export const frenchDate = (iso: string): string => iso.slice(0, 10).split('-').reverse().join('/');
const year = (iso: string): string => iso.slice(0, 4);
export const plural = (n: number, word: string, words = `${word}s`): string => `${n} ${n > 1 ? words : word}`;

function definitions(rows: [string, string | null][]): string {
  return `<dl class="fiche">${rows.map(([term, html]) => `<dt>${escapeHtml(term)}</dt><dd>${html ?? '<span class="muted">non renseigné</span>'}</dd>`).join('')}</dl>`;
}

const text = (value: string | null | undefined): string | null => (value === null || value === undefined || value === '' ? null : escapeHtml(value));

/** Where the record's identity comes from, as the page says it. */
const IDENTITY_SOURCES: Record<CompanyRecord['fields']['source_identite'], string> = {
  sirene: 'Répertoire SIRENE (Insee), unité légale',
  sirene_etablissements: 'Répertoire SIRENE (Insee), établissements seuls : unité légale pas encore importée',
  rne: 'Registre national des entreprises (INPI) : entreprise absente du stock SIRENE importé, identité tirée du registre',
};

function identitySection(f: CompanyRecord['fields'], establishment: boolean): string {
  const place = [f.code_postal, f.ville].filter(Boolean).join(' ');
  const address = [f.adresse, place].filter(Boolean).join(', ');
  const state = f.etat === 'active' ? '<span class="etat etat-active">Active</span>' : '<span class="etat etat-cessee">Cessée</span>';
  return `<section aria-labelledby="identite"><h2 id="identite">Identité</h2>${definitions([
    ['Raison sociale', f.raison_sociale_connue ? text(f.raison_sociale) : '<span class="muted">non diffusée ou pas encore importée</span>'],
    ['Nom commercial', text(f.nom_commercial)],
    ['SIREN', escapeHtml(f.siren)],
    [establishment ? 'SIRET' : 'SIRET de l’établissement présenté', text(f.siret)],
    ['Forme juridique', text(f.forme_juridique)],
    ['Catégorie', text(f.categorie)],
    ['Effectif', text(f.effectif)],
    ['Création', f.date_creation ? escapeHtml(frenchDate(f.date_creation)) : null],
    [establishment ? 'État de l’établissement' : 'État', state],
    ['Adresse', text(address)],
    ['Source de l’identité', escapeHtml(IDENTITY_SOURCES[f.source_identite] ?? f.source_identite)],
  ])}</section>`;
}

function activitySection(f: CompanyRecord['fields']): string {
  let main: string | null = null;
  if (f.code_naf) {
    // A legacy code's label already names its code and nomenclature.
    main = f.libelle_naf ? (f.nomenclature_naf && f.nomenclature_naf !== 'NAFRev2' ? escapeHtml(f.libelle_naf) : `${escapeHtml(f.libelle_naf)} (${escapeHtml(f.code_naf)})`) : `Code ${escapeHtml(f.code_naf)}`;
  }
  const rows: [string, string | null][] = [['Activité principale', main]];
  if (f.code_naf_2025) rows.push(['Code NAF 2025', escapeHtml(f.code_naf_2025)]);
  return `<section aria-labelledby="activite"><h2 id="activite">Activité</h2>${definitions(rows)}</section>`;
}

function rgeSection(f: CompanyRecord['fields']): string {
  if (!f.est_rge) return '<section aria-labelledby="rge"><h2 id="rge">Certification RGE</h2><p>Aucune certification RGE en cours.</p></section>';
  const until = f.rge_date_fin ? `, jusqu’au ${escapeHtml(frenchDate(f.rge_date_fin))} pour la plus tardive` : '';
  const domains = f.rge_domaines.length ? `<ul class="liste">${f.rge_domaines.map((d) => `<li>${escapeHtml(d)}</li>`).join('')}</ul>` : '';
  return `<section aria-labelledby="rge"><h2 id="rge">Certification RGE</h2><p>Certifiée RGE : ${plural(f.nombre_certifications_actives, 'qualification en cours', 'qualifications en cours')}${until}.${
    f.rge_domaines.length ? ` ${f.rge_domaines.length > 1 ? 'Domaines' : 'Domaine'} :` : ''
  }</p>${domains}</section>`;
}

function officerItem(o: Officer): string {
  if (o.type === 'personne_morale') {
    const name = escapeHtml(o.denomination ?? o.nom);
    const linked = o.siren ? `<a href="/entreprises/${escapeHtml(o.siren)}">${name}</a> (SIREN ${escapeHtml(o.siren)})` : name;
    return `<li>${linked}, ${escapeHtml(o.qualite)}, personne morale</li>`;
  }
  const name = [o.nom, o.prenoms].filter(Boolean).join(' ');
  // As the public registers: the year of birth at most.
  const born = o.annee_naissance ? `, né(e) en ${o.annee_naissance}` : '';
  return `<li><strong>${escapeHtml(name)}</strong>, ${escapeHtml(o.qualite)}${born}</li>`;
}

export function officersSection(f: Pick<CompanyRecord['fields'], 'dirigeants'>): string {
  const body = f.dirigeants.length
    ? `<p>${plural(f.dirigeants.length, 'dirigeant en fonction', 'dirigeants en fonction')}, tels que le Registre national des entreprises les publie.</p><ul class="liste">${f.dirigeants.map(officerItem).join('')}</ul>`
    : '<p>Aucun dirigeant connu (registre non importé pour cette entreprise).</p>';
  return `<section aria-labelledby="dirigeants"><h2 id="dirigeants">Dirigeants</h2>${body}</section>`;
}

interface Bar {
  kind: 'ca' | 'rn';
  value: number;
}

/**
 * The turnover and net result over the years as grouped bars, oldest year on the left; a
 * confidential year keeps its slot, labelled, with no bar. Values below zero go under the zero line.
 */
export function accountsChart(years: readonly Year[]): string {
  const slots = [...years].reverse().map((y) => ({
    year: y,
    bars: y.comptes_confidentiels
      ? []
      : ([
          { kind: 'ca', value: y.chiffre_affaires },
          { kind: 'rn', value: y.resultat_net },
        ].filter((b): b is Bar => b.value !== null) as Bar[]),
  }));
  const values = slots.flatMap((s) => s.bars.map((b) => b.value));
  if (!values.length) return '';
  const max = Math.max(0, ...values);
  const min = Math.min(0, ...values);
  const span = max - min || 1;
  const left = 64;
  const top = 14;
  const plot = 150;
  const slot = 64;
  const bar = 20;
  const width = left + slots.length * slot + 12;
  const height = top + plot + 34;
  const y = (v: number) => top + ((max - v) / span) * plot;
  const zero = y(0);
  const describe = (s: (typeof slots)[number]): string =>
    s.year.comptes_confidentiels
      ? `${year(s.year.exercice)} : comptes confidentiels`
      : `${year(s.year.exercice)} : chiffre d’affaires ${s.year.chiffre_affaires === null ? 'non publié' : euros(s.year.chiffre_affaires)}, résultat net ${s.year.resultat_net === null ? 'non publié' : euros(s.year.resultat_net)}`;
  const label = `Chiffre d’affaires et résultat net par exercice, ${slots.map(describe).join(' ; ')}.`;
  const parts: string[] = [];
  parts.push(`<title>Chiffre d’affaires et résultat net par exercice</title>`);
  parts.push(`<desc>${escapeHtml(label)}</desc>`);
  // The scale's bounds and the zero line.
  // A bound's label only where it does not sit on the zero's.
  if (zero - top > 12) parts.push(`<text x="${left - 6}" y="${top + 4}" text-anchor="end" font-size="10" fill="#5b6678">${escapeHtml(compactEuros(max))}</text>`);
  if (top + plot - zero > 12) parts.push(`<text x="${left - 6}" y="${top + plot + 3}" text-anchor="end" font-size="10" fill="#5b6678">${escapeHtml(compactEuros(min))}</text>`);
  parts.push(`<text x="${left - 6}" y="${(zero + 3.5).toFixed(1)}" text-anchor="end" font-size="10" fill="#5b6678">0</text>`);
  slots.forEach((s, i) => {
    const x0 = left + i * slot + (slot - 2 * bar - 4) / 2;
    const centre = left + i * slot + slot / 2;
    parts.push(`<text x="${centre}" y="${top + plot + 16}" text-anchor="middle" font-size="11" fill="#1d2533">${escapeHtml(year(s.year.exercice))}</text>`);
    if (s.year.comptes_confidentiels) {
      parts.push(`<text class="confidentiel" x="${centre}" y="${(zero - 6).toFixed(1)}" text-anchor="middle" font-size="9" fill="#5b6678">confidentiels</text>`);
      return;
    }
    for (const b of s.bars) {
      const x = b.kind === 'ca' ? x0 : x0 + bar + 4;
      // A value too small for the scale still shows as a hairline.
      const h = Math.max(1, Math.abs(y(b.value) - zero));
      const yTop = b.value >= 0 ? zero - h : zero;
      const colour = b.kind === 'ca' ? '#1f5fbf' : b.value < 0 ? '#c0392b' : '#2e8b57';
      const what = b.kind === 'ca' ? 'chiffre d’affaires' : 'résultat net';
      parts.push(
        `<rect class="barre barre-${b.kind}${b.value < 0 ? ' negatif' : ''}" x="${x.toFixed(1)}" y="${yTop.toFixed(1)}" width="${bar}" height="${h.toFixed(1)}" fill="${colour}"><title>${escapeHtml(
          `${year(s.year.exercice)}, ${what} : ${euros(b.value)}`,
        )}</title></rect>`,
      );
    }
  });
  parts.push(`<line class="zero" x1="${left}" x2="${width - 6}" y1="${zero.toFixed(1)}" y2="${zero.toFixed(1)}" stroke="#1d2533" stroke-width="1"/>`);
  return `<figure class="graphique"><svg xmlns="http://www.w3.org/2000/svg" role="img" aria-label="${escapeHtml(label)}" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">${parts.join('')}</svg>
<figcaption class="legende">Légende :<span class="ca"></span>chiffre d’affaires<span class="rn"></span>résultat net positif<span class="rn-negatif"></span>résultat net négatif</figcaption></figure>`;
}

function accountsTable(years: readonly Year[]): string {
  const rows = years.map((y) => {
    const head = `<th scope="row">${escapeHtml(frenchDate(y.exercice))}${y.duree_mois !== null && y.duree_mois !== 12 ? ` <span class="muted">(${y.duree_mois} mois)</span>` : ''}</th>`;
    if (y.comptes_confidentiels) return `<tr>${head}<td class="confidentiel" colspan="3">comptes confidentiels</td></tr>`;
    const amount = (v: number | null) => `<td class="nombre">${v === null ? '<span class="muted">non publié</span>' : escapeHtml(euros(v))}</td>`;
    return `<tr>${head}${amount(y.chiffre_affaires)}${amount(y.resultat_net)}<td class="nombre">${y.variation_ca_pct === null ? '—' : escapeHtml(percent(y.variation_ca_pct))}</td></tr>`;
  });
  return `<table class="comptes"><caption class="muted">Comptes annuels publiés, le plus récent exercice d’abord</caption><thead><tr><th scope="col">Exercice clos le</th><th scope="col" class="nombre">Chiffre d’affaires</th><th scope="col" class="nombre">Résultat net</th><th scope="col" class="nombre">Variation du chiffre d’affaires</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

export function financesSection(f: Pick<CompanyRecord['fields'], 'capital_social_eur' | 'evolution_ca'>): string {
  const capital = f.capital_social_eur === null ? '<p>Capital social non connu (registre non importé, entreprise sans capital ou capital dans une autre devise).</p>' : `<p>Capital social : <strong>${escapeHtml(euros(f.capital_social_eur))}</strong>.</p>`;
  const accounts = f.evolution_ca.length
    ? `<h3>Chiffre d’affaires sur les exercices publiés</h3>${accountsChart(f.evolution_ca)}${accountsTable(f.evolution_ca)}<p class="muted">Montants tels que publiés (ratios financiers BCE/INPI), jamais corrigés ; des comptes déclarés confidentiels ne montrent aucun montant.</p>`
    : '<p>Aucun compte annuel publié connu pour cette entreprise.</p>';
  return `<section aria-labelledby="finances"><h2 id="finances">Capital et comptes</h2>${capital}${accounts}</section>`;
}

function awardsSection(f: CompanyRecord['fields'], awards: CompanyAwards, establishment: boolean): string {
  const report = `<p><a href="/rapports/marque/${escapeHtml(f.siren)}">Rapport de marque de l’entreprise</a> : tous ses marchés gagnés, par année, acheteur et famille d’achats.</p>`;
  let body: string;
  if (!awards.read) body = `<p class="error">Les marchés remportés n’ont pas pu être lus : ${escapeHtml(awards.reason)}</p>`;
  else if (!awards.records.length) body = `<p>Aucun marché attribué connu pour ${establishment ? 'cet établissement' : 'cette entreprise'} dans les données essentielles de la commande publique importées.</p>`;
  else {
    const rows = awards.records.map((a) => {
      const af = a.fields;
      return `<tr><td>${af.date_notification ? escapeHtml(frenchDate(af.date_notification)) : '—'}</td><td><a href="/attributions/${escapeHtml(encodeURIComponent(a.id))}">${escapeHtml(a.titre)}</a></td><td>${
        text(af.acheteur) ?? '—'
      }</td><td class="nombre">${af.montant === null ? '—' : escapeHtml(euros(af.montant))}</td></tr>`;
    });
    body = `<p>${awards.more ? `Les ${awards.records.length} plus récents` : awards.records.length > 1 ? `Les ${awards.records.length}` : 'Le seul'} marché${awards.records.length > 1 ? 's' : ''} attribué${
      awards.records.length > 1 ? 's' : ''
    } à ${establishment ? 'cet établissement' : 'cette entreprise'} (données essentielles de la commande publique).</p><table class="marches"><thead><tr><th scope="col">Notifié le</th><th scope="col">Objet</th><th scope="col">Acheteur</th><th scope="col" class="nombre">Montant HT</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
  }
  return `<section aria-labelledby="marches"><h2 id="marches">Marchés remportés</h2>${body}${report}</section>`;
}

const FAMILIES: Record<Proceeding['famille'], string> = {
  collective: 'Procédure collective',
  conciliation: 'Conciliation',
  retablissement_professionnel: 'Rétablissement professionnel',
};

export function proceedingsSection(f: Pick<CompanyRecord['fields'], 'procedures_collectives'>): string {
  const items = f.procedures_collectives.map((p) => {
    const judgement = p.date_jugement ? ` (jugement du ${escapeHtml(frenchDate(p.date_jugement))})` : '';
    return `<li>Publiée le <strong>${escapeHtml(frenchDate(p.date_parution))}</strong> : ${escapeHtml(FAMILIES[p.famille] ?? p.famille)}${p.nature ? `, ${escapeHtml(p.nature)}` : ''}${judgement}${
      p.tribunal ? `, ${escapeHtml(p.tribunal)}` : ''
    }. <a href="/bodacc/${escapeHtml(encodeURIComponent(p.annonce_id))}">Annonce ${escapeHtml(p.annonce_id)}</a></li>`;
  });
  const body = items.length
    ? `<p>Annonces du BODACC, la plus récente d’abord.</p><ul class="liste">${items.join('')}</ul>`
    : '<p>Aucune procédure collective publiée au BODACC parmi les annonces importées.</p>';
  return `<section aria-labelledby="procedures"><h2 id="procedures">Procédures collectives</h2>${body}</section>`;
}

/** The whole page: the record (`entreprises.get`) and the awards it won. */
export function companyPage(record: CompanyRecord, awards: CompanyAwards): string {
  const f = record.fields;
  const establishment = record.id.length === 14;
  const body = [
    `<h1>${escapeHtml(record.titre)}</h1>`,
    `<p class="muted">${escapeHtml(establishment ? `Établissement ${record.id}` : `Entreprise ${record.id}`)} · ${escapeHtml(record.resume)}</p>`,
    identitySection(f, establishment),
    activitySection(f),
    rgeSection(f),
    officersSection(f),
    financesSection(f),
    awardsSection(f, awards, establishment),
    proceedingsSection(f),
    '<p class="muted">Sources : SIRENE (Insee), liste RGE (ADEME), Registre national des entreprises (INPI), ratios financiers BCE/INPI, DECP, BODACC (DILA).</p>',
  ];
  return page(record.titre, body.join('\n'), true, COMPANY_STYLE);
}
