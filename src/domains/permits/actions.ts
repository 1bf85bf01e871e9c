// Building permits (Sitadel): searches and one authorisation. `url` is the service's own
// permalink; `demandeur_url` the company's, when the applicant is in the directory.
import { wholeNumberFr } from '../../platform/french-numbers.js';
import type { Caller } from '../../access/caller.js';
import { permitsByIds, permitsByNumber, searchPermits, type PermitView } from './store.js';
import { normalisePermitNumber } from './import-sitadel.js';
import { STATE_LABELS, TYPE_LABELS } from './rows.js';
import { departementsOf } from '../reference/lists.js';
import { MAX_SEARCH_DEPTH, pagedSearch } from '../../platform/search/cursor.js';
import { parseQuery } from '../../platform/search/query-syntax.js';
import type { Services } from '../context.js';
import type { HandlerMap, OperationResults } from '../../../generated/handler-map.js';

type PermitActions = Pick<HandlerMap<Caller>, 'permis.search' | 'permis.get'>;
type PermitRecord = OperationResults['permis.get']['results'][number];

const META = { sources: ['Sitadel : listes des permis de construire et autres autorisations d’urbanisme (SDES)'], profondeur_max: MAX_SEARCH_DEPTH };

const frenchDate = (iso: string) => iso.split('-').reverse().join('/');
const m2 = (n: number) => `${wholeNumberFr(n)} m²`;

function summary(p: PermitView): string {
  const state = STATE_LABELS[p.etat];
  const parts = [`${state.charAt(0).toUpperCase()}${state.slice(1)}${p.date_autorisation ? ` le ${frenchDate(p.date_autorisation)}` : ''}`];
  if (p.etat === '5' && p.date_ouverture_chantier) parts.push(`chantier ouvert le ${frenchDate(p.date_ouverture_chantier)}`);
  if (p.etat === '6' && p.date_achevement) parts.push(`travaux achevés le ${frenchDate(p.date_achevement)}`);
  parts.push(`${p.localite ?? p.commune} (${p.departement ?? '?'})`);
  if (p.nature_projet) parts.push(p.nature_projet.toLowerCase());
  if (p.logements) parts.push(`${p.logements} logement${p.logements > 1 ? 's' : ''}`);
  if (p.surface_creee) parts.push(`${m2(p.surface_creee)} créés`);
  parts.push(p.demandeur ? `demandeur : ${p.demandeur}${p.siren_demandeur ? ` (SIREN ${p.siren_demandeur})` : ''}` : 'demandeur particulier ou non publié');
  return `${parts.join(' — ')}.`;
}

export function permitRecord(p: PermitView, publicUrl: string): PermitRecord {
  return {
    id: p.id,
    titre: `${TYPE_LABELS[p.type]} ${p.numero}${p.localite ? ` — ${p.localite}` : ''}`,
    resume: summary(p),
    fields: {
      numero: p.numero,
      type: p.type,
      type_libelle: TYPE_LABELS[p.type],
      etat: p.etat,
      etat_libelle: STATE_LABELS[p.etat],
      date_autorisation: p.date_autorisation,
      date_ouverture_chantier: p.date_ouverture_chantier,
      date_achevement: p.date_achevement,
      annee_depot: p.annee_depot,
      commune: p.commune,
      departement: p.departement,
      localite: p.localite,
      code_postal: p.code_postal,
      adresse: p.adresse,
      nature_projet: p.nature_projet,
      logements: p.logements ?? null,
      surface_habitation_creee: p.surface_habitation_creee ?? null,
      surface_locaux_creee: p.surface_locaux_creee ?? null,
      surface_creee: p.surface_creee ?? null,
      superficie_terrain: p.superficie_terrain,
      demandeur: p.demandeur,
      siren_demandeur: p.siren_demandeur,
      siret_demandeur: p.siret_demandeur,
      categorie_juridique_demandeur: p.categorie_juridique_demandeur,
      activite_demandeur: p.activite_demandeur,
      demandeur_url: p.demandeurConnu && p.siren_demandeur ? `${publicUrl}/entreprises/${p.siren_demandeur}` : null,
      mise_a_jour_source: p.source_updated,
      url: `${publicUrl}/permis/${encodeURIComponent(p.id)}`,
    },
  };
}

export function permitActions({ db, publicUrl, cursorKey }: Services): PermitActions {
  return {
    'permis.get': async (args) => {
      const results = (await permitsByNumber(db, normalisePermitNumber(args.id))).map((p) => permitRecord(p, publicUrl));
      return { results, next_cursor: null, total_estimated: results.length, _meta: META };
    },
    'permis.search': async (args) => ({
      ...(await pagedSearch('permis.search', args, cursorKey, async (page) => {
        const departements = departementsOf(args.departements, args.region);
        const found = await searchPermits(
          db,
          args.query ? parseQuery(args.query) : null,
          {
            departements,
            commune: args.commune?.toUpperCase(),
            types: args.type,
            etats: args.etat,
            authorisedFrom: args.autorise_depuis,
            authorisedTo: args.autorise_avant,
            logementsMin: args.logements_min,
            surfaceMin: args.surface_min,
            surfaceMax: args.surface_max,
            siren: args.siren,
          },
          page,
        );
        return { records: (await permitsByIds(db, found.ids)).map((p) => permitRecord(p, publicUrl)), hasMore: found.hasMore, total: found.total };
      })),
      _meta: META,
    }),
  };
}
