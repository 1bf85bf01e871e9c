// Legal announcements (BODACC): searches and one announcement. `url` is the service's own
// permalink; no personal data of a natural person beyond its trade name.
import type { Caller } from '../../access/caller.js';
import { announcementsByIds, searchAnnouncements, type AnnouncementView } from './store.js';
import { BODACC_FAMILIES } from './import-bodacc.js';
import { departementsOf } from '../reference/lists.js';
import { MAX_SEARCH_DEPTH, pagedSearch } from '../../platform/search/cursor.js';
import { parseQuery } from '../../platform/search/query-syntax.js';
import type { Services } from '../context.js';
import type { HandlerMap, OperationResults } from '../../../generated/handler-map.js';

type AnnouncementActions = Pick<HandlerMap<Caller>, 'bodacc.search' | 'bodacc.get'>;
type AnnouncementRecord = OperationResults['bodacc.get']['results'][number];

const META = { sources: ['BODACC, annonces commerciales (DILA, données ouvertes)'], profondeur_max: MAX_SEARCH_DEPTH };

const frenchDate = (iso: string) => iso.split('-').reverse().join('/');

export function announcementRecord(a: AnnouncementView, publicUrl: string): AnnouncementRecord {
  const family = a.famille_libelle ?? (a.famille ? (BODACC_FAMILIES[a.famille] ?? a.famille) : 'Annonce');
  const who = a.denomination ?? (a.type_personne === 'pp' ? 'Entrepreneur individuel' : 'Entreprise') + (a.sirens[0] ? ` ${a.sirens[0]}` : '');
  const what = a.jugement_nature ?? a.detail;
  const place = a.ville ? `${a.ville}${a.departement ? ` (${a.departement})` : ''}` : null;
  const resume = [
    `${family}${a.type_avis && a.type_avis !== 'annonce' ? ` (${a.type_avis_libelle ?? a.type_avis})` : ''}`,
    what ? what.slice(0, 500) : null,
    a.tribunal,
    place,
    `parue le ${frenchDate(a.date_parution)}`,
  ]
    .filter((p): p is string => !!p)
    .join(' — ');
  return {
    id: a.id,
    titre: `${who} — ${family}`,
    resume: `${resume}.`,
    fields: {
      id_bodacc: a.id,
      bulletin: a.bulletin,
      numero_parution: a.numero_parution,
      numero_annonce: a.numero_annonce,
      date_parution: a.date_parution,
      famille: a.famille,
      famille_libelle: a.famille_libelle,
      type_avis: a.type_avis,
      type_avis_libelle: a.type_avis_libelle,
      departement: a.departement,
      departement_nom: a.departement_nom,
      ville: a.ville,
      code_postal: a.code_postal,
      tribunal: a.tribunal,
      type_personne: a.type_personne === 'pm' ? 'personne_morale' : a.type_personne === 'pp' ? 'personne_physique' : null,
      denomination: a.denomination,
      forme_juridique: a.forme_juridique,
      activite: a.activite,
      sirens: a.sirens,
      jugement: a.jugement_nature || a.jugement_famille || a.jugement_date ? { famille: a.jugement_famille, nature: a.jugement_nature, date: a.jugement_date } : null,
      detail: a.detail,
      details_illisibles: a.details_illisibles,
      url: `${publicUrl}/bodacc/${encodeURIComponent(a.id)}`,
    },
  };
}

export function announcementActions({ db, publicUrl, cursorKey }: Services): AnnouncementActions {
  return {
    'bodacc.get': async (args) => {
      const results = (await announcementsByIds(db, [args.id.trim()])).map((a) => announcementRecord(a, publicUrl));
      return { results, next_cursor: null, total_estimated: results.length, _meta: META };
    },
    'bodacc.search': async (args) => ({
      ...(await pagedSearch('bodacc.search', args, cursorKey, async (page) => {
        const departements = departementsOf(args.departements, args.region);
        const found = await searchAnnouncements(
          db,
          args.query ? parseQuery(args.query) : null,
          { familles: args.familles, departements, from: args.parue_depuis, to: args.parue_avant, siren: args.siren },
          page,
        );
        return { records: (await announcementsByIds(db, found.ids)).map((a) => announcementRecord(a, publicUrl)), hasMore: found.hasMore, total: found.total };
      })),
      _meta: META,
    }),
  };
}
