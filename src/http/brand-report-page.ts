// The brand report's printable page (`/rapports/marque/<siren>`): the `marque.rapport` report
// as a readable French page, with the same officers, accounts and proceedings sections as the
// company's page. Pure presentation: no call, no clock; every value from the data is escaped.
import type { components } from '../../generated/openapi-types.js';
import { escapeHtml, page } from '../auth/pages.js';
import { euros } from '../platform/french-numbers.js';
import { COMPANY_STYLE, financesSection, frenchDate, officersSection, plural, proceedingsSection } from './company-page.js';

export type BrandReport = components['schemas']['BrandReport'];
type Fields = BrandReport['fields'];

const REPORT_STYLE = `
  table.rapport { width: 100%; }
  @media print { main.wide { box-shadow: none; margin: 0; max-width: none; } a { color: inherit; text-decoration: none; } }
`;

/** « 12,5 % » from a share between 0 and 1. */
function share(part: number): string {
  return `${String(Math.round(part * 1000) / 10).replace('.', ',')} %`;
}

function table(caption: string, heads: string[], rows: string[][], numeric: ReadonlySet<number>): string {
  const th = heads.map((h, i) => `<th scope="col"${numeric.has(i) ? ' class="nombre"' : ''}>${escapeHtml(h)}</th>`).join('');
  const body = rows.map((cells) => `<tr>${cells.map((c, i) => `<td${numeric.has(i) ? ' class="nombre"' : ''}>${c}</td>`).join('')}</tr>`).join('');
  return `<table class="rapport"><caption class="muted">${escapeHtml(caption)}</caption><thead><tr>${th}</tr></thead><tbody>${body}</tbody></table>`;
}

function section(id: string, title: string, body: string): string {
  return `<section aria-labelledby="${id}"><h2 id="${id}">${escapeHtml(title)}</h2>${body}</section>`;
}

function winsSection(f: Fields): string {
  if (!f.marches_gagnes) return section('gains', 'Marchés gagnés', '<p>Aucun marché gagné connu dans les données essentielles de la commande publique importées, sur la période demandée.</p>');
  const period = f.periode.debut && f.periode.fin ? ` notifiés entre le ${escapeHtml(frenchDate(f.periode.debut))} et le ${escapeHtml(frenchDate(f.periode.fin))}` : '';
  const truncated = f.tronque ? '<p class="muted">Plus de 20 000 marchés gagnés sur la période : le rapport porte sur les 20 000 plus récents.</p>' : '';
  const years = table(
    'Par année de notification',
    ['Année', 'Marchés', 'Montant HT'],
    f.par_annee.map((y) => [String(y.annee), String(y.nombre), escapeHtml(euros(y.montant_total))]),
    new Set([1, 2]),
  );
  const streaks = f.series.length
    ? `<h3>Séries d’années consécutives avec au moins un marché gagné</h3><ul class="liste">${f.series
        .map((s) => `<li>${s.debut === s.fin ? String(s.debut) : `${s.debut} à ${s.fin}`} (${plural(s.annees, 'année')})</li>`)
        .join('')}</ul>`
    : '';
  return section(
    'gains',
    'Marchés gagnés',
    `<p><strong>${plural(f.marches_gagnes, 'marché gagné', 'marchés gagnés')}</strong>${period}, pour <strong>${escapeHtml(euros(f.montant_total))}</strong> HT (montants connus ; un marché à plusieurs titulaires compte en entier pour chacun).</p>${truncated}${years}${streaks}`,
  );
}

function buyersSection(f: Fields): string {
  if (!f.acheteurs.length) return '';
  const rows = f.acheteurs.map((b) => {
    const name = escapeHtml(b.nom ?? 'Acheteur sans nom publié');
    return [b.acheteur_id ? `<a href="/acheteurs/${escapeHtml(encodeURIComponent(b.acheteur_id))}">${name}</a>` : name, String(b.nombre), escapeHtml(euros(b.montant_total))];
  });
  return section('acheteurs', 'Principaux acheteurs', table('Les acheteurs qui lui ont attribué le plus de marchés', ['Acheteur', 'Marchés', 'Montant HT'], rows, new Set([1, 2])));
}

function marketsSection(f: Fields): string {
  if (!f.familles_cpv.length && !f.departements.length) return '';
  const families = f.familles_cpv.length
    ? table(
        'Groupes CPV (trois premiers chiffres du code) où elle gagne le plus',
        ['Groupe CPV', 'Libellé', 'Marchés', 'Montant HT'],
        f.familles_cpv.map((c) => [escapeHtml(c.famille), c.libelle ? escapeHtml(c.libelle) : '<span class="muted">—</span>', String(c.nombre), escapeHtml(euros(c.montant_total))]),
        new Set([2, 3]),
      )
    : '';
  const departments = f.departements.length
    ? table('Départements du lieu d’exécution', ['Département', 'Marchés', 'Montant HT'], f.departements.map((d) => [escapeHtml(d.departement), String(d.nombre), escapeHtml(euros(d.montant_total))]), new Set([1, 2]))
    : '';
  const shares = f.parts.length
    ? table(
        'Sa part des attributions de ses marchés les plus fréquents (groupe CPV et département, même période)',
        ['Groupe CPV', 'Département', 'Gagnés', 'Attributions', 'Part'],
        f.parts.map((p) => [escapeHtml(p.famille), escapeHtml(p.departement), String(p.gagnes), String(p.attributions), escapeHtml(share(p.part))]),
        new Set([2, 3, 4]),
      )
    : '';
  return section('marches', 'Ses marchés', `${families}${departments}${shares}`);
}

function rgeSection(f: Fields): string {
  const body = f.rge_domaines.length
    ? `<p>${plural(f.rge_domaines.length, 'domaine RGE en cours', 'domaines RGE en cours')} pour ses établissements :</p><ul class="liste">${f.rge_domaines.map((d) => `<li>${escapeHtml(d)}</li>`).join('')}</ul>`
    : '<p>Aucune certification RGE en cours.</p>';
  return section('rge', 'Certification RGE', body);
}

/** The whole printable report. */
export function brandReportPage(report: BrandReport): string {
  const f = report.fields;
  const body = [
    `<h1>${escapeHtml(report.titre)}</h1>`,
    `<p class="muted">SIREN ${escapeHtml(f.siren)} · ${escapeHtml(report.resume)} <a href="/entreprises/${escapeHtml(f.siren)}">Fiche de l’entreprise</a></p>`,
    winsSection(f),
    buyersSection(f),
    marketsSection(f),
    rgeSection(f),
    officersSection(f),
    financesSection(f),
    proceedingsSection(f),
    '<p class="muted">Sources : données essentielles de la commande publique (DECP), SIRENE (Insee), liste RGE (ADEME), Registre national des entreprises (INPI), ratios financiers BCE/INPI, BODACC (DILA).</p>',
  ];
  return page(report.titre, body.filter(Boolean).join('\n'), true, COMPANY_STYLE + REPORT_STYLE);
}
