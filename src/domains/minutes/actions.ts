// Council minutes (source `mairie`): searches and one deliberation. `url` is the service's
// own permalink; the source document's address is never kept.
import type { Caller } from '../../access/caller.js';
import { MAX_SEARCH_DEPTH, pagedSearch } from '../../platform/search/cursor.js';
import { parseQuery } from '../../platform/search/query-syntax.js';
import type { Services } from '../context.js';
import { departementsOf } from '../reference/lists.js';
import { deliberationsByIds, searchDeliberations, type DeliberationView } from './store.js';
import type { HandlerMap, OperationResults } from '../../../generated/handler-map.js';

type MinutesActions = Pick<HandlerMap<Caller>, 'deliberations.search' | 'deliberations.get'>;
type DeliberationRecord = OperationResults['deliberations.get']['results'][number];

const META = { sources: ['Délibérations municipales (format JSON Lines du service)'], profondeur_max: MAX_SEARCH_DEPTH };
const frenchDate = (iso: string) => iso.split('-').reverse().join('/');
const EXTRACT_LENGTH = 400;

/** The first words of a text, cut at a word, with an ellipsis when cut. */
export function extract(text: string, length = EXTRACT_LENGTH): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length <= length) return flat;
  const cut = flat.slice(0, length);
  const space = cut.lastIndexOf(' ');
  return `${(space > length / 2 ? cut.slice(0, space) : cut).replace(/[\s,;:.]+$/, '')}…`;
}

export function deliberationRecord(d: DeliberationView, publicUrl: string, full: boolean): DeliberationRecord {
  return {
    id: d.id,
    titre: d.titre,
    resume: `Conseil municipal de ${d.commune_nom}, séance du ${frenchDate(d.date_seance)}${d.numero ? `, délibération n° ${d.numero}` : ''} — ${extract(d.texte, 200)}`,
    fields: {
      id: d.id,
      commune: d.commune,
      commune_nom: d.commune_nom,
      departement: d.departement,
      date_seance: d.date_seance,
      numero: d.numero,
      titre: d.titre,
      extrait: extract(d.texte),
      texte: full ? d.texte : null,
      source: d.source,
      url: `${publicUrl}/deliberations/${encodeURIComponent(d.id)}`,
    },
  };
}

export function minutesActions({ db, publicUrl, cursorKey }: Services): MinutesActions {
  return {
    'deliberations.get': async (args) => {
      const results = (await deliberationsByIds(db, [args.id.trim()])).map((d) => deliberationRecord(d, publicUrl, true));
      return { results, next_cursor: null, total_estimated: results.length, _meta: META };
    },
    'deliberations.search': async (args) => ({
      ...(await pagedSearch('deliberations.search', args, cursorKey, async (page) => {
        const found = await searchDeliberations(
          db,
          args.query ? parseQuery(args.query) : null,
          { departements: departementsOf(args.departements, args.region), commune: args.commune, from: args.date_depuis, to: args.date_avant },
          page,
        );
        return { records: (await deliberationsByIds(db, found.ids)).map((d) => deliberationRecord(d, publicUrl, false)), hasMore: found.hasMore, total: found.total };
      })),
      _meta: META,
    }),
  };
}
