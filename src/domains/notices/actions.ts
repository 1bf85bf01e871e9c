// Published notices (BOAMP): one by its id, and searches. No contact of the buyer; `url`
// is the service's own permalink.
import type { Caller } from '../../access/caller.js';
import type { NoticeFields } from './rows.js';
import { noticeById, noticesByIds, searchNotices } from './store.js';
import { departementsOf } from '../reference/lists.js';
import { MAX_SEARCH_DEPTH, pagedSearch } from '../../platform/search/cursor.js';
import { parseQuery } from '../../platform/search/query-syntax.js';
import { parisIso } from '../../platform/paris-time.js';
import type { Services } from '../context.js';
import type { HandlerMap, OperationResults } from '../../../generated/handler-map.js';

type NoticeActions = Pick<HandlerMap<Caller>, 'marches.search' | 'marches.get'>;
type NoticeRecord = OperationResults['marches.get']['results'][number];

const META = { sources: ['BOAMP (DILA), avis de marché publiés'], profondeur_max: MAX_SEARCH_DEPTH };

function frenchDate(iso: string): string {
  const [y, m, d] = iso.slice(0, 10).split('-');
  return `${d}/${m}/${y}`;
}

/** Whether the notice is cancelled (its state, or a later notice cancelling it). */
export const isCancelled = (n: Pick<NoticeFields, 'etat' | 'nature'>) => /ANNUL/i.test(`${n.etat ?? ''} ${n.nature ?? ''}`);

export function noticeRecord(n: NoticeFields, publicUrl: string, now: Date): NoticeRecord {
  const cancelled = isCancelled(n);
  const open = !cancelled && n.date_limite !== null && new Date(n.date_limite) > now;
  const deadline = n.date_limite ? parisIso(new Date(n.date_limite)) : null;
  const place = n.departements.length ? `départements ${n.departements.join(', ')}` : 'lieu non précisé';
  return {
    id: n.marche_id,
    titre: n.objet,
    resume: `${n.acheteur_nom ?? 'Acheteur non précisé'} — ${place}${n.date_parution ? ` — publié le ${frenchDate(n.date_parution)}` : ''}${
      deadline ? ` — réponses jusqu'au ${frenchDate(deadline)}${open ? '' : ' (clos)'}` : ''
    }${n.lots.length > 1 ? ` — ${n.lots.length} lots` : ''}${cancelled ? ' — avis annulé' : ''}${n.modification && !cancelled ? ` — ${n.modification}` : ''}.`,
    fields: {
      marche_id: n.marche_id,
      annonce_id: n.annonce_id,
      source: 'BOAMP',
      objet: n.objet,
      acheteur: n.acheteur_nom,
      acheteur_id: n.buyer_id,
      date_parution: n.date_parution,
      date_limite: deadline,
      ouvert: open,
      departements: n.departements,
      types_marche: n.types_marche,
      nature: n.nature,
      nature_libelle: n.nature_libelle,
      procedure: n.procedure_libelle,
      cpv: n.cpv,
      cpv_codes: n.cpv_codes,
      acheteur_siret: n.acheteur_siret,
      valeur_estimee: n.valeur_estimee,
      lots: n.lots,
      annule: cancelled,
      annonces_liees: n.annonces_liees,
      modification: n.modifie_le ? { le: parisIso(new Date(n.modifie_le)), par: n.modifie_par, libelle: n.modification } : null,
      url: `${publicUrl}/marches/${n.marche_id}`,
    },
  };
}

export function noticeActions({ db, now, publicUrl, cursorKey }: Services): NoticeActions {
  return {
    'marches.get': async (args) => {
      const notice = await noticeById(db, args.marche_id.trim());
      const results = notice ? [noticeRecord(notice, publicUrl, now())] : [];
      return { results, next_cursor: null, total_estimated: results.length, _meta: META };
    },
    'marches.search': async (args) => ({
      ...(await pagedSearch('marches.search', args, cursorKey, async (page) => {
        // A region is the list of its departments.
        const departements = departementsOf(args.departements, args.region);
        const at = now();
        const found = await searchNotices(
          db,
          args.query ? parseQuery(args.query) : null,
          {
            departements,
            typesMarche: args.type_marche,
            cpvPrefix: args.cpv,
            publishedFrom: args.publie_depuis,
            publishedTo: args.publie_avant,
            openAfter: args.ouverts ? at.toISOString() : undefined,
            buyerWords: args.acheteur,
          },
          page,
        );
        return { records: (await noticesByIds(db, found.ids)).map((n) => noticeRecord(n, publicUrl, at)), hasMore: found.hasMore, total: found.total };
      })),
      _meta: META,
    }),
  };
}
