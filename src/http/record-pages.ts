// The permalink pages of the public records other than companies: a notice (its lots,
// deadline, buyer, consultation file and the awards that followed), an award, a BODACC
// announcement, a building permit, a property sale; and a consultation file's piece read
// page by page. Pure presentation like the company page: no call, no clock; every value
// from the data is escaped; labels in French, dates in words, never a field name.
import type { components } from '../../generated/openapi-types.js';
import { escapeHtml, page } from '../auth/pages.js';
import { euros, wholeNumberFr } from '../platform/french-numbers.js';
import { COMPANY_STYLE, plural } from './company-page.js';
import { longDate, longDateTime, monthYear } from '../platform/french-dates.js';

type Schemas = components['schemas'];
export type NoticeRecord = Schemas['NoticeRecord'];
export type AwardRecord = Schemas['AwardRecord'];
export type AnnouncementRecord = Schemas['AnnouncementRecord'];
export type PermitRecord = Schemas['PermitRecord'];
export type SaleRecord = Schemas['SaleRecord'];
export type DceContents = Schemas['DceReadResult'];
type DcePiece = Schemas['DcePiece'];

/** What another read of the page gave: its answer, or why it could not be made. */
export type Read<T> = { read: true; value: T } | { read: false; reason: string };

/** How many awards a notice's page lists. */
export const PAGE_NOTICE_AWARDS = 20;

export const RECORD_STYLE = `${COMPANY_STYLE}
  .etat-annule { background: #fdecea; color: #8a1c12; }
  .etat-clos { background: #eef0f4; color: #3d4756; }
  table.pieces td, table.pieces th { font-size: .9rem; }
  .texte-piece { white-space: pre-wrap; line-height: 1.55; font-size: .95rem; background: #f8f9fb; border-radius: 6px; padding: 1rem 1.1rem; }
  nav.pages { display: flex; gap: 1.2rem; margin: 1rem 0; }
`;

const text = (value: string | null | undefined): string | null => (value === null || value === undefined || value === '' ? null : escapeHtml(value));
const path = (...parts: string[]) => `/${parts.map((p) => encodeURIComponent(p)).join('/')}`;
const link = (href: string, label: string) => `<a href="${escapeHtml(href)}">${label}</a>`;
const squareMetres = (n: number | null) => (n === null ? null : `${escapeHtml(wholeNumberFr(n))} m²`);

function definitions(rows: [string, string | null][]): string {
  return `<dl class="fiche">${rows.map(([term, html]) => `<dt>${escapeHtml(term)}</dt><dd>${html ?? '<span class="muted">non renseigné</span>'}</dd>`).join('')}</dl>`;
}

function section(id: string, title: string, body: string): string {
  return `<section aria-labelledby="${id}"><h2 id="${id}">${escapeHtml(title)}</h2>${body}</section>`;
}

function recordPage(title: string, subtitle: string, sections: string[], sources: string): string {
  return page(title, [`<h1>${escapeHtml(title)}</h1>`, `<p class="muted">${escapeHtml(subtitle)}</p>`, ...sections, `<p class="muted">Source : ${escapeHtml(sources)}.</p>`].join('\n'), true, RECORD_STYLE);
}

// ——— Notices ———

const MARKET_TYPES: Record<string, string> = { TRAVAUX: 'Travaux', FOURNITURES: 'Fournitures', SERVICES: 'Services' };

export const PIECE_KINDS: Record<DcePiece['doc_type'], string> = {
  rc: 'Règlement de la consultation',
  ccap: 'Cahier des clauses administratives particulières (CCAP)',
  cctp: 'Cahier des clauses techniques particulières (CCTP)',
  bpu: 'Bordereau des prix unitaires (BPU)',
  dpgf: 'Décomposition du prix global et forfaitaire (DPGF)',
  dqe: 'Détail quantitatif estimatif (DQE)',
  ae: 'Acte d’engagement',
  dc1: 'Lettre de candidature (DC1)',
  dc2: 'Déclaration du candidat (DC2)',
  dume: 'Document unique de marché européen (DUME)',
  questions_reponses: 'Questions et réponses',
  cadre_reponse: 'Cadre de réponse',
  plan: 'Plan',
  annexe: 'Annexe',
  autre: 'Autre pièce',
};

/** « 12 Ko », « 1,5 Mo ». */
export function fileSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} o`;
  if (bytes < 1024 * 1024) return `${Math.round(bytes / 1024)} Ko`;
  return `${(bytes / 1024 / 1024).toFixed(1).replace('.', ',')} Mo`;
}

/** The address of a piece's reading page (`page` 1 unless given), and of its download. */
export const readingHref = (noticeId: string, piece: Pick<DcePiece, 'filename' | 'doc_type'>, pageNumber = 1) =>
  `${path('marches', noticeId, 'dce', 'lecture')}?${new URLSearchParams({ piece: piece.filename, type: piece.doc_type, ...(pageNumber > 1 ? { page: String(pageNumber) } : {}) }).toString()}`;
export const downloadHref = (noticeId: string, filename?: string) => `${path('marches', noticeId, 'dce', 'telechargement')}${filename === undefined ? '' : `?${new URLSearchParams({ piece: filename }).toString()}`}`;

function noticeState(f: NoticeRecord['fields']): string {
  if (f.annule) return '<span class="etat etat-annule">Annulé</span>';
  if (f.ouvert) return '<span class="etat etat-active">Ouvert aux réponses</span>';
  return '<span class="etat etat-clos">Clos</span>';
}

function noticeSection(f: NoticeRecord['fields']): string {
  const buyer = f.acheteur ? (f.acheteur_id ? link(path('acheteurs', f.acheteur_id), escapeHtml(f.acheteur)) : escapeHtml(f.acheteur)) : null;
  const deadline = f.date_limite ? `${escapeHtml(longDateTime(f.date_limite))} (heure de Paris)` : null;
  const linked = f.annonces_liees.map((id) => link(path('marches', id), `avis ${escapeHtml(id)}`)).join(', ');
  return section(
    'avis',
    'L’avis',
    definitions([
      ['État', noticeState(f)],
      ['Acheteur', buyer],
      ['Date limite de réponse', deadline],
      ['Publié le', f.date_parution ? escapeHtml(longDate(f.date_parution)) : null],
      ['Nature', text(f.nature_libelle ?? f.nature)],
      ['Procédure', text(f.procedure)],
      ['Type de marché', f.types_marche.length ? escapeHtml(f.types_marche.map((t) => MARKET_TYPES[t] ?? t).join(', ')) : null],
      ['Départements', f.departements.length ? escapeHtml(f.departements.join(', ')) : null],
      ['Valeur estimée', f.valeur_estimee === null ? null : `${escapeHtml(euros(f.valeur_estimee))} HT`],
      ['Code CPV principal', text(f.cpv)],
      ...(f.modification ? ([['Dernière modification', `${text(f.modification.libelle) ?? 'avis modifié'}${f.modification.par ? ` (${link(path('marches', f.modification.par), `avis ${escapeHtml(f.modification.par)}`)})` : ''}`]] as [string, string][]) : []),
      ...(linked ? ([['Avis antérieurs cités', linked]] as [string, string][]) : []),
      ['Référence BOAMP', escapeHtml(f.annonce_id)],
    ]),
  );
}

function lotsSection(f: NoticeRecord['fields']): string {
  if (!f.lots.length) return section('lots', 'Lots', '<p>L’avis ne découpe pas le marché en lots.</p>');
  const rows = f.lots.map(
    (l) =>
      `<tr><th scope="row">${escapeHtml(l.numero)}</th><td>${text(l.titre) ?? '<span class="muted">sans intitulé</span>'}</td><td>${escapeHtml(l.cpv_codes.join(', ')) || '—'}</td><td class="nombre">${
        l.valeur_estimee === null ? '—' : escapeHtml(euros(l.valeur_estimee))
      }</td></tr>`,
  );
  return section(
    'lots',
    'Lots',
    `<p>${plural(f.lots.length, 'lot')}.</p><table class="lots"><thead><tr><th scope="col">Lot</th><th scope="col">Intitulé</th><th scope="col">Codes CPV</th><th scope="col" class="nombre">Valeur estimée HT</th></tr></thead><tbody>${rows.join('')}</tbody></table>`,
  );
}

function dceSection(noticeId: string, dce: Read<DceContents | null>): string {
  let body: string;
  if (!dce.read) body = `<p class="error">Le dossier de consultation n’a pas pu être lu : ${escapeHtml(dce.reason)}</p>`;
  else if (!dce.value) body = '<p>Aucun dossier de consultation importé pour cet avis.</p>';
  else {
    const pieces = dce.value.fichiers ?? [];
    const rows = pieces.map((p) => {
      const reading = p.pages_total ? `${link(readingHref(noticeId, p), 'Lire')} <span class="muted">(${plural(p.pages_total, 'page')} de lecture)</span>` : '<span class="muted">sans texte</span>';
      return `<tr><th scope="row">${escapeHtml(p.filename)}</th><td>${escapeHtml(PIECE_KINDS[p.doc_type] ?? p.doc_type)}</td><td>${p.lot === null ? '—' : escapeHtml(String(p.lot))}</td><td>${reading}</td><td>${link(
        downloadHref(noticeId, p.filename),
        'Télécharger',
      )} <span class="muted">(${escapeHtml(fileSize(p.taille))})</span></td></tr>`;
    });
    body = `<p>${plural(pieces.length, 'pièce')}${dce.value.fields ? `, version ${dce.value.fields.version} du ${escapeHtml(longDate(dce.value.fields.mis_a_jour))}` : ''}. ${link(
      downloadHref(noticeId),
      'Télécharger tout le dossier (archive zip)',
    )}</p><table class="pieces"><thead><tr><th scope="col">Pièce</th><th scope="col">Nature</th><th scope="col">Lot</th><th scope="col">Lecture</th><th scope="col">Fichier</th></tr></thead><tbody>${rows.join(
      '',
    )}</tbody></table><p class="muted">Lire ou télécharger une pièce compte une unité de consultation pour ce dossier, une fois par jour (heure de Paris).</p>`;
  }
  return section('dce', 'Dossier de consultation', body);
}

/** An award's winners as text (names only; the award's page links them). */
const winnerNames = (a: AwardRecord) => a.fields.titulaires.map((t) => t.denomination ?? t.identifiant ?? 'titulaire sans nom').join(', ');

function noticeAwardsSection(awards: Read<{ records: AwardRecord[]; more: boolean }>): string {
  let body: string;
  if (!awards.read) body = `<p class="error">Les attributions n’ont pas pu être lues : ${escapeHtml(awards.reason)}</p>`;
  else if (!awards.value.records.length) body = '<p>Aucun résultat d’attribution publié pour cet avis parmi les avis importés.</p>';
  else {
    const rows = awards.value.records.map(
      (a) =>
        `<tr><td>${a.fields.date_notification ? escapeHtml(longDate(a.fields.date_notification)) : '—'}</td><td>${link(path('attributions', a.id), escapeHtml(a.titre))}</td><td>${escapeHtml(winnerNames(a)) || '—'}</td><td class="nombre">${
          text(a.fields.montant_libelle) ?? '—'
        }</td></tr>`,
    );
    body = `<p>${awards.value.more ? `Les ${awards.value.records.length} premiers marchés attribués` : plural(awards.value.records.length, 'marché attribué', 'marchés attribués')} d’après les avis d’attribution publiés pour cet avis.</p><table class="marches"><thead><tr><th scope="col">Décision</th><th scope="col">Marché</th><th scope="col">Titulaires</th><th scope="col" class="nombre">Montant HT</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
  }
  return section('attributions', 'Attributions', body);
}

/** A notice's page: the record (`marches.get`), its consultation file's contents (null: none), and the awards that followed. */
export function noticePage(record: NoticeRecord, dce: Read<DceContents | null>, awards: Read<{ records: AwardRecord[]; more: boolean }>): string {
  const f = record.fields;
  return recordPage(record.titre, `Avis ${f.annonce_id} publié au BOAMP · ${record.resume}`, [noticeSection(f), lotsSection(f), dceSection(f.marche_id, dce), noticeAwardsSection(awards)], 'BOAMP (DILA) ; dossiers de consultation importés par le service');
}

/** A piece of a consultation file, one reading page, with the way to the next and back to the notice. */
export function dceReadingPage(noticeId: string, reading: DceContents): string {
  const piece = { filename: reading.filename ?? '', doc_type: reading.doc_type ?? 'autre' };
  const pageNumber = reading.page ?? 1;
  const total = reading.pages_total ?? 1;
  const nav = [
    pageNumber > 1 ? link(readingHref(noticeId, piece, pageNumber - 1), '← Page précédente') : '',
    pageNumber < total ? link(readingHref(noticeId, piece, pageNumber + 1), 'Page suivante →') : '',
  ].filter(Boolean);
  const body = [
    `<h1>${escapeHtml(piece.filename)}</h1>`,
    `<p class="muted">${escapeHtml(PIECE_KINDS[piece.doc_type] ?? piece.doc_type)} · dossier de consultation de ${link(path('marches', noticeId), escapeHtml(reading.titre ?? 'l’avis'))}</p>`,
    `<p><strong>Page ${pageNumber} sur ${total}</strong> (pages de lecture d’environ 8 000 caractères). ${link(downloadHref(noticeId, piece.filename), 'Télécharger la pièce')}</p>`,
    nav.length ? `<nav class="pages" aria-label="Pages de lecture">${nav.join('')}</nav>` : '',
    `<div class="texte-piece">${escapeHtml(reading.texte ?? '')}</div>`,
    nav.length ? `<nav class="pages" aria-label="Pages de lecture (bas)">${nav.join('')}</nav>` : '',
  ];
  return page(`${piece.filename} — page ${pageNumber}`, body.join('\n'), true, RECORD_STYLE);
}

// ——— Awards ———

const companyLink = (siren: string | null, siret: string | null, name: string) => (siren ? link(path('entreprises', siren), name) : siret ? link(path('etablissements', siret), name) : name);

function holderItem(t: AwardRecord['fields']['titulaires'][number]): string {
  const name = escapeHtml(t.denomination ?? t.identifiant ?? 'titulaire sans nom');
  if (t.siret || t.siren) return `<li><strong>${companyLink(t.siren, t.siret, name)}</strong>${t.siret ? ` (SIRET ${escapeHtml(t.siret)})` : t.siren ? ` (SIREN ${escapeHtml(t.siren)})` : ''}</li>`;
  const id = t.identifiant ? ` (${escapeHtml(t.type_identifiant ?? 'identifiant')} ${escapeHtml(t.identifiant)}, tel que publié)` : '';
  return `<li><strong>${name}</strong>${id}</li>`;
}

const months = (n: number | null) => (n === null ? null : plural(n, 'mois', 'mois'));

function amendmentItem(m: AwardRecord['fields']['modifications'][number]): string {
  const parts = [
    m.montant === null ? null : `montant porté à ${m.montant === 0 ? 'montant non publié' : euros(m.montant)}`,
    m.duree_mois === null ? null : `durée portée à ${months(m.duree_mois)}`,
    m.titulaires?.length ? `titulaires : ${m.titulaires.map((t) => t.denomination ?? t.identifiant ?? 'sans nom').join(', ')}` : null,
  ].filter((p): p is string => p !== null);
  return `<li>${m.date ? `<strong>${escapeHtml(longDate(m.date))}</strong> : ` : ''}${escapeHtml(m.objet ?? 'Modification')}${parts.length ? ` — ${escapeHtml(parts.join(' ; '))}` : ''}</li>`;
}

/** An award's page (`attributions.get`): buyer and winners linked, the amount in force and the original. */
export function awardPage(record: AwardRecord): string {
  const f = record.fields;
  const buyer = f.acheteur ? (f.acheteur_id ? link(path('acheteurs', f.acheteur_id), escapeHtml(f.acheteur)) : escapeHtml(f.acheteur)) : null;
  const amended = f.montant_initial !== null && f.montant !== null && f.montant !== f.montant_initial;
  const amount = f.montant_libelle ? `<strong>${escapeHtml(f.montant_libelle)}</strong>${f.montant_publie ? ' HT' : ''}` : null;
  const duration = f.duree_mois === null ? null : `${escapeHtml(months(f.duree_mois) as string)}${f.duree_mois_initiale !== null && f.duree_mois_initiale !== f.duree_mois ? ` (initialement ${escapeHtml(months(f.duree_mois_initiale) as string)})` : ''}`;
  const contract = section(
    'marche',
    'Le marché',
    definitions([
      ['Acheteur', buyer],
      ['Objet', text(f.objet)],
      ['Notifié le', f.date_notification ? escapeHtml(longDate(f.date_notification)) : null],
      ['Nature', text(f.nature)],
      ['Procédure', text(f.procedure)],
      ['Durée', duration],
      ['Forme du prix', text(f.forme_prix)],
      ['Code CPV', text(f.cpv)],
      ['Département', text(f.departement)],
      ['Source', f.source === 'boamp' ? 'Avis d’attribution publié au BOAMP' : 'Données essentielles de la commande publique (DECP)'],
      ['Identifiant', escapeHtml(f.id_decp)],
    ]),
  );
  const money = section(
    'montant',
    'Montant',
    definitions([
      ['Montant en vigueur', amount],
      ['Montant initial', f.montant_initial === null ? null : f.montant_initial === 0 ? 'montant non publié' : `${escapeHtml(euros(f.montant_initial))} HT`],
    ]) + (amended ? `<p>Le montant a changé par ${plural(f.modifications.length, 'modification')} (avenants), détaillées plus bas.</p>` : ''),
  );
  const holders = section(
    'titulaires',
    'Titulaires',
    f.titulaires.length ? `<ul class="liste">${f.titulaires.map(holderItem).join('')}</ul>` : '<p>Aucun titulaire publié.</p>',
  );
  const amendments = section(
    'modifications',
    'Modifications',
    f.modifications.length ? `<p>De la plus ancienne à la plus récente.</p><ul class="liste">${f.modifications.map(amendmentItem).join('')}</ul>` : '<p>Aucune modification publiée.</p>',
  );
  return recordPage(record.titre, `Marché attribué · ${record.resume}`, [contract, money, holders, amendments], f.source === 'boamp' ? 'BOAMP (DILA), avis d’attribution' : 'DECP (données essentielles de la commande publique)');
}

// ——— BODACC announcements ———

const BULLETINS: Record<string, string> = { A: 'BODACC A (ventes, créations, immatriculations, procédures)', B: 'BODACC B (modifications, radiations)', C: 'BODACC C (dépôts des comptes)' };

/** A BODACC announcement's page (`bodacc.get`): a natural person appears by trade name only. */
export function announcementPage(record: AnnouncementRecord): string {
  const f = record.fields;
  const place = [f.code_postal, f.ville].filter(Boolean).join(' ');
  const announcement = section(
    'annonce',
    'L’annonce',
    definitions([
      ['Publiée le', escapeHtml(longDate(f.date_parution))],
      ['Famille', text(f.famille_libelle ?? f.famille)],
      ['Type d’avis', text(f.type_avis_libelle ?? f.type_avis)],
      ['Bulletin', f.bulletin ? escapeHtml(BULLETINS[f.bulletin] ?? `BODACC ${f.bulletin}`) : null],
      ['Parution', f.numero_parution ? `n° ${escapeHtml(f.numero_parution)}${f.numero_annonce !== null ? `, annonce n° ${f.numero_annonce}` : ''}` : null],
      ['Tribunal', text(f.tribunal)],
      ['Département', f.departement ? escapeHtml(f.departement_nom ? `${f.departement_nom} (${f.departement})` : f.departement) : null],
      ['Commune', text(place)],
    ]),
  );
  const person = f.type_personne === 'personne_physique';
  const sirens = f.sirens.map((s) => link(path('entreprises', s), escapeHtml(s))).join(', ');
  const company = section(
    'entreprise',
    'L’entreprise',
    definitions([
      [person ? 'Nom commercial' : 'Dénomination', f.denomination ? escapeHtml(f.denomination) : person ? '<span class="muted">entrepreneur individuel sans nom commercial (son nom n’est pas repris)</span>' : null],
      ['Forme juridique', person ? 'Entrepreneur individuel' : text(f.forme_juridique)],
      ['Activité', text(f.activite)],
      ['SIREN', sirens || null],
    ]),
  );
  const sections = [announcement, company];
  if (f.jugement)
    sections.push(
      section(
        'jugement',
        'Jugement',
        definitions([
          ['Jugement', text(f.jugement.famille)],
          ['Nature', text(f.jugement.nature)],
          ['Date du jugement', f.jugement.date ? escapeHtml(longDate(f.jugement.date)) : null],
        ]),
      ),
    );
  if (f.detail || f.details_illisibles.length)
    sections.push(
      section(
        'detail',
        'Ce que dit l’acte',
        `${f.detail ? `<p>${escapeHtml(f.detail)}</p>` : ''}${f.details_illisibles.length ? `<p class="muted">Publiés illisibles par la source, donc omis : ${escapeHtml(f.details_illisibles.join(', '))}.</p>` : ''}`,
      ),
    );
  return recordPage(record.titre, `Annonce ${record.id} du BODACC · ${record.resume}`, sections, 'BODACC (DILA), annonces commerciales');
}

// ——— Building permits ———

const PERMIT_STATES: Record<PermitRecord['fields']['etat_libelle'], string> = {
  autorisé: '<span class="etat etat-active">Autorisé</span>',
  annulé: '<span class="etat etat-annule">Annulé</span>',
  commencé: '<span class="etat etat-active">Chantier commencé</span>',
  achevé: '<span class="etat etat-clos">Travaux achevés</span>',
};

/** A permit's page (`permis.get`): the applicant only when a company, linked to its page. */
export function permitPage(record: PermitRecord): string {
  const f = record.fields;
  const authorisation = section(
    'autorisation',
    'L’autorisation',
    definitions([
      ['Sorte', escapeHtml(f.type_libelle)],
      ['État', PERMIT_STATES[f.etat_libelle] ?? escapeHtml(f.etat_libelle)],
      ['Autorisé le', f.date_autorisation ? escapeHtml(longDate(f.date_autorisation)) : null],
      ['Ouverture du chantier', f.date_ouverture_chantier ? escapeHtml(longDate(f.date_ouverture_chantier)) : '<span class="muted">non déclarée</span>'],
      ['Achèvement des travaux', f.date_achevement ? escapeHtml(longDate(f.date_achevement)) : '<span class="muted">non déclaré</span>'],
      ['Demande déposée en', f.annee_depot === null ? null : String(f.annee_depot)],
      ['Numéro', escapeHtml(f.numero)],
      ['Mise à jour de la source', f.mise_a_jour_source ? escapeHtml(monthYear(f.mise_a_jour_source)) : null],
    ]),
  );
  const place = [f.code_postal, f.localite].filter(Boolean).join(' ');
  const land = section(
    'terrain',
    'Le terrain',
    definitions([
      ['Adresse', text(f.adresse)],
      ['Localité', text(place)],
      ['Commune (code Insee)', escapeHtml(f.commune)],
      ['Département', text(f.departement)],
      ['Superficie', squareMetres(f.superficie_terrain)],
    ]),
  );
  const project = section(
    'projet',
    'Le projet',
    definitions([
      ['Nature', text(f.nature_projet)],
      ['Logements créés', f.logements === null ? null : escapeHtml(wholeNumberFr(f.logements))],
      ['Surface d’habitation créée', squareMetres(f.surface_habitation_creee)],
      ['Surface de locaux créée', squareMetres(f.surface_locaux_creee)],
      ['Surface de plancher créée', squareMetres(f.surface_creee)],
    ]),
  );
  const applicantName = f.demandeur ? (f.siren_demandeur && f.demandeur_url ? link(path('entreprises', f.siren_demandeur), escapeHtml(f.demandeur)) : escapeHtml(f.demandeur)) : null;
  const applicant = section(
    'demandeur',
    'Le demandeur',
    f.demandeur || f.siren_demandeur
      ? definitions([
          ['Dénomination', applicantName],
          ['SIREN', text(f.siren_demandeur)],
          ['SIRET', text(f.siret_demandeur)],
          ['Catégorie juridique', text(f.categorie_juridique_demandeur)],
          ['Activité (APE)', text(f.activite_demandeur)],
        ])
      : '<p>Particulier ou demandeur non diffusé : la source ne publie pas le nom d’une personne physique.</p>',
  );
  return recordPage(record.titre, `Autorisation d’urbanisme ${record.id} · ${record.resume}`, [authorisation, land, project, applicant], 'Sitadel (SDES), autorisations d’urbanisme');
}

// ——— Property sales ———

/** A sale's page (`ventes.search` by mutation): price, place, premises and parcels. */
export function salePage(record: SaleRecord): string {
  const f = record.fields;
  const sale = section(
    'vente',
    'La vente',
    definitions([
      ['Date', escapeHtml(longDate(f.date_mutation))],
      ['Nature', escapeHtml(f.nature_mutation)],
      ['Prix', f.valeur_fonciere === null ? '<span class="muted">non publié</span>' : `<strong>${escapeHtml(euros(f.valeur_fonciere))}</strong>`],
      ['Prix au m² bâti', f.prix_m2 === null ? null : escapeHtml(euros(f.prix_m2))],
      ['Type', text(f.type_local)],
      ['Surface bâtie', squareMetres(f.surface_reelle_bati)],
      ['Pièces principales', f.nombre_pieces_principales === null ? null : String(f.nombre_pieces_principales)],
      ['Terrain', squareMetres(f.surface_terrain)],
    ]),
  );
  const place = section(
    'lieu',
    'Le lieu',
    definitions([
      ['Adresse', text(f.adresse)],
      ['Commune', text([f.code_postal, f.nom_commune].filter(Boolean).join(' '))],
      ['Code Insee', text(f.code_commune)],
      ['Département', text(f.departement)],
    ]),
  );
  const premisesRows = f.locaux.map((l) => {
    const lots = l.lots.map((lot) => `lot ${lot.numero}${lot.surface_carrez === null ? '' : ` (${wholeNumberFr(lot.surface_carrez)} m² Carrez)`}`).join(', ');
    return `<tr><td>${escapeHtml(l.type_local)}</td><td class="nombre">${squareMetres(l.surface_reelle_bati) ?? '—'}</td><td class="nombre">${l.nombre_pieces_principales ?? '—'}</td><td>${text(l.id_parcelle) ?? '—'}</td><td>${escapeHtml(lots) || '—'}</td></tr>`;
  });
  const premises = section(
    'locaux',
    'Les locaux',
    f.locaux.length
      ? `<table class="locaux"><thead><tr><th scope="col">Type</th><th scope="col" class="nombre">Surface bâtie</th><th scope="col" class="nombre">Pièces</th><th scope="col">Parcelle</th><th scope="col">Lots</th></tr></thead><tbody>${premisesRows.join('')}</tbody></table>`
      : '<p>Aucun local : vente de terrain seul.</p>',
  );
  const parcelRows = f.parcelles.map(
    (p) => `<tr><td>${escapeHtml(p.id_parcelle)}</td><td>${text([p.nature_culture, p.nature_culture_speciale].filter(Boolean).join(', ')) ?? '—'}</td><td class="nombre">${squareMetres(p.surface_terrain) ?? '—'}</td></tr>`,
  );
  const parcels = section(
    'parcelles',
    'Les parcelles',
    f.parcelles.length
      ? `<table class="parcelles"><thead><tr><th scope="col">Parcelle</th><th scope="col">Nature de culture</th><th scope="col" class="nombre">Surface</th></tr></thead><tbody>${parcelRows.join('')}</tbody></table>`
      : '<p>Aucune parcelle publiée.</p>',
  );
  return recordPage(record.titre, `Vente ${record.id} · ${record.resume}`, [sale, place, premises, parcels], 'Demandes de valeurs foncières (DVF, DGFiP)');
}
