// Social-network posts (source `reseaux_sociaux`): searches and one post. `url` is the
// service's own permalink; the post's link on the network is never kept.
import type { Caller } from '../../access/caller.js';
import { MAX_SEARCH_DEPTH, pagedSearch } from '../../platform/search/cursor.js';
import { parseQuery } from '../../platform/search/query-syntax.js';
import { parisIsoOf } from '../../platform/paris-time.js';
import type { Services } from '../context.js';
import { departementsOf } from '../reference/lists.js';
import { publicationsByIds, searchPublications, type PublicationView } from './store.js';
import type { HandlerMap, OperationResults } from '../../../generated/handler-map.js';

type PostActions = Pick<HandlerMap<Caller>, 'publications.search' | 'publications.get'>;
type PublicationRecord = OperationResults['publications.get']['results'][number];

const META = { sources: ['Publications des réseaux sociaux (format JSON Lines du service)'], profondeur_max: MAX_SEARCH_DEPTH };
const NETWORKS: Readonly<Record<string, string>> = {
  facebook: 'Facebook',
  instagram: 'Instagram',
  linkedin: 'LinkedIn',
  x: 'X',
  mastodon: 'Mastodon',
  bluesky: 'Bluesky',
  youtube: 'YouTube',
  autre: 'un réseau social',
};
const frenchDate = (iso: string) => iso.split('-').reverse().join('/');

function opening(text: string, length: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length <= length) return flat;
  const cut = flat.slice(0, length);
  const space = cut.lastIndexOf(' ');
  return `${(space > length / 2 ? cut.slice(0, space) : cut).replace(/[\s,;:.]+$/, '')}…`;
}

export function publicationRecord(p: PublicationView, publicUrl: string): PublicationRecord {
  return {
    id: p.id,
    titre: `${p.auteur} sur ${NETWORKS[p.reseau] ?? p.reseau}`,
    resume: `Le ${frenchDate(p.jour)}${p.commune_nom ? ` (${p.commune_nom})` : ''} — ${opening(p.texte, 280)}`,
    fields: {
      id: p.id,
      reseau: p.reseau as PublicationRecord['fields']['reseau'],
      auteur: p.auteur,
      date: parisIsoOf(p.date_publication) as string,
      texte: p.texte,
      commune: p.commune,
      commune_nom: p.commune_nom,
      departement: p.departement,
      url: `${publicUrl}/publications/${encodeURIComponent(p.id)}`,
    },
  };
}

export function postActions({ db, publicUrl, cursorKey }: Services): PostActions {
  return {
    'publications.get': async (args) => {
      const results = (await publicationsByIds(db, [args.id.trim()])).map((p) => publicationRecord(p, publicUrl));
      return { results, next_cursor: null, total_estimated: results.length, _meta: META };
    },
    'publications.search': async (args) => ({
      ...(await pagedSearch('publications.search', args, cursorKey, async (page) => {
        const found = await searchPublications(
          db,
          args.query ? parseQuery(args.query) : null,
          {
            reseaux: args.reseaux ?? [],
            departements: departementsOf(args.departements, args.region),
            commune: args.commune,
            from: args.date_depuis,
            to: args.date_avant,
          },
          page,
        );
        return { records: (await publicationsByIds(db, found.ids)).map((p) => publicationRecord(p, publicUrl)), hasMore: found.hasMore, total: found.total };
      })),
      _meta: META,
    }),
  };
}
