// Directory contacts (source `contact`): searches and one contact. Name, role and
// organisation only; `url` is the service's own permalink.
import type { Caller } from '../../access/caller.js';
import { MAX_SEARCH_DEPTH, pagedSearch } from '../../platform/search/cursor.js';
import { parseQuery } from '../../platform/search/query-syntax.js';
import type { Services } from '../context.js';
import { departementsOf } from '../reference/lists.js';
import { contactsByIds, searchContacts, type ContactView } from './store.js';
import type { HandlerMap, OperationResults } from '../../../generated/handler-map.js';

type ContactActions = Pick<HandlerMap<Caller>, 'contacts.search' | 'contacts.get'>;
type ContactRecord = OperationResults['contacts.get']['results'][number];

const META = { sources: ['Annuaire des contacts (format JSON Lines du service, sans coordonnées)'], profondeur_max: MAX_SEARCH_DEPTH };

export function contactRecord(c: ContactView, publicUrl: string): ContactRecord {
  return {
    id: c.id,
    titre: c.nom,
    resume: `${c.role} — ${c.organisation}${c.commune_nom ? ` (${c.commune_nom})` : c.departement ? ` (département ${c.departement})` : ''}.`,
    fields: {
      id: c.id,
      nom: c.nom,
      role: c.role,
      organisation: c.organisation,
      organisation_siren: c.organisation_siren,
      organisation_siret: c.organisation_siret,
      commune: c.commune,
      commune_nom: c.commune_nom,
      departement: c.departement,
      url: `${publicUrl}/contacts/${encodeURIComponent(c.id)}`,
    },
  };
}

export function contactActions({ db, publicUrl, cursorKey }: Services): ContactActions {
  return {
    'contacts.get': async (args) => {
      const results = (await contactsByIds(db, [args.id.trim()])).map((c) => contactRecord(c, publicUrl));
      return { results, next_cursor: null, total_estimated: results.length, _meta: META };
    },
    'contacts.search': async (args) => ({
      ...(await pagedSearch('contacts.search', args, cursorKey, async (page) => {
        const found = await searchContacts(
          db,
          args.query ? parseQuery(args.query) : null,
          {
            departements: departementsOf(args.departements, args.region),
            commune: args.commune,
            organisation: args.organisation,
            organisationSiren: args.organisation_siren,
            role: args.role,
          },
          page,
        );
        return { records: (await contactsByIds(db, found.ids)).map((c) => contactRecord(c, publicUrl)), hasMore: found.hasMore, total: found.total };
      })),
      _meta: META,
    }),
  };
}
