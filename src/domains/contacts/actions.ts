// Directory contacts (source `contact`): searches and one contact. Name, role and
// organisation only; `url` is the service's own permalink.
import type { Caller } from '../../access/caller.js';
import { decodeCursor, MAX_SEARCH_DEPTH, nextCursor, pageWindow, searchFingerprint } from '../../platform/search/cursor.js';
import { parseQuery } from '../../platform/search/query-syntax.js';
import type { Services } from '../context.js';
import { REGIONS } from '../reference/lists.js';
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
    'contacts.search': async (args) => {
      const { cursor, limit: _limit, ...criteria } = args;
      const fingerprint = searchFingerprint('contacts.search', criteria);
      const window = pageWindow(cursor ? decodeCursor(cursor, cursorKey, fingerprint) : null, args.limit ?? 10);
      const regionDeps = args.region ? (REGIONS.find((r) => r.code === args.region)?.departements ?? []) : [];
      const found = await searchContacts(
        db,
        args.query ? parseQuery(args.query) : null,
        {
          departements: [...new Set([...(args.departements ?? []), ...regionDeps])],
          commune: args.commune,
          organisation: args.organisation,
          organisationSiren: args.organisation_siren,
          role: args.role,
        },
        { offset: window.offset, limit: window.limit, countCap: MAX_SEARCH_DEPTH },
      );
      const results = (await contactsByIds(db, found.ids)).map((c) => contactRecord(c, publicUrl));
      return {
        results,
        next_cursor: nextCursor({ offset: window.offset, returned: results.length, hasMore: found.hasMore, fingerprint }, cursorKey),
        total_estimated: Math.min(found.total, MAX_SEARCH_DEPTH),
        _meta: META,
      };
    },
  };
}
