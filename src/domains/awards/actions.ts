// Awarded contracts (DECP) and public buyers: searches, one award, a buyer's profile by
// year. `url` is the service's own permalink.
import { euros } from '../../platform/french-numbers.js';
import type { Caller } from '../../access/caller.js';
import { awardsByKeys, buyerById, searchAwards, searchBuyers, type AwardView, type BuyerView } from './store.js';
import { departementsOf } from '../reference/lists.js';
import { MAX_SEARCH_DEPTH, pagedSearch } from '../../platform/search/cursor.js';
import { parseQuery } from '../../platform/search/query-syntax.js';
import type { Services } from '../context.js';
import type { HandlerMap, OperationResults } from '../../../generated/handler-map.js';

type AwardActions = Pick<HandlerMap<Caller>, 'attributions.search' | 'attributions.get' | 'acheteurs.search' | 'acheteurs.get'>;
type AwardRecord = OperationResults['attributions.get']['results'][number];
type BuyerRecord = OperationResults['acheteurs.get']['results'][number];

const AWARD_META = { sources: ['Données essentielles de la commande publique (DECP)'], profondeur_max: MAX_SEARCH_DEPTH };
const BUYER_META = { sources: ['BOAMP (DILA)', 'Données essentielles de la commande publique (DECP)'], profondeur_max: MAX_SEARCH_DEPTH };

const frenchDate = (iso: string) => iso.split('-').reverse().join('/');

export function awardRecord(a: AwardView, publicUrl: string): AwardRecord {
  const winners = a.titulaires.map((t) => t.denomination ?? t.siret).join(', ');
  return {
    id: a.award_key,
    titre: a.objet ?? `Marché ${a.id}`,
    resume: `${a.buyerName ?? 'Acheteur non précisé'}${a.montant !== null ? ` — ${euros(a.montant)}` : ''}${a.date_notification ? ` — notifié le ${frenchDate(a.date_notification)}` : ''}${
      winners ? ` — titulaire${a.titulaires.length > 1 ? 's' : ''} : ${winners}` : ''
    }.`,
    fields: {
      id_decp: a.id,
      acheteur: a.buyerName,
      acheteur_id: a.buyer_id,
      objet: a.objet,
      cpv: a.cpv,
      procedure: a.procedure,
      nature: a.nature,
      lieu_code: a.lieu_code,
      departement: a.departement,
      montant: a.montant,
      date_notification: a.date_notification,
      duree_mois: a.duree_mois,
      forme_prix: a.forme_prix,
      titulaires: a.titulaires,
      url: `${publicUrl}/attributions/${encodeURIComponent(a.award_key)}`,
    },
  };
}

export function buyerRecord(b: BuyerView, publicUrl: string): BuyerRecord {
  const notices = b.notices.reduce((n, y) => n + y.nombre, 0);
  const awards = b.awards.reduce((n, y) => n + y.nombre, 0);
  return {
    id: b.id,
    titre: b.nom,
    resume: `${notices} avis publié${notices > 1 ? 's' : ''}, ${awards} marché${awards > 1 ? 's' : ''} attribué${awards > 1 ? 's' : ''}${b.siret ? ` — SIRET ${b.siret}` : ''}.`,
    fields: { id: b.id, nom: b.nom, siret: b.siret, avis_par_annee: b.notices, attributions_par_annee: b.awards, url: `${publicUrl}/acheteurs/${encodeURIComponent(b.id)}` },
  };
}

export function awardActions({ db, publicUrl, cursorKey }: Services): AwardActions {
  return {
    'attributions.get': async (args) => {
      const results = (await awardsByKeys(db, [args.id.trim()])).map((a) => awardRecord(a, publicUrl));
      return { results, next_cursor: null, total_estimated: results.length, _meta: AWARD_META };
    },
    'attributions.search': async (args) => ({
      ...(await pagedSearch('attributions.search', args, cursorKey, async (page) => {
        const departements = departementsOf(args.departements, args.region);
        const found = await searchAwards(
          db,
          args.query ? parseQuery(args.query) : null,
          {
            departements,
            montantMin: args.montant_min,
            titulaire: args.titulaire,
            acheteurSiret: args.acheteur_siret,
            cpvPrefix: args.cpv,
            notifiedFrom: args.notifie_depuis,
            notifiedTo: args.notifie_avant,
          },
          page,
        );
        return { records: (await awardsByKeys(db, found.keys)).map((a) => awardRecord(a, publicUrl)), hasMore: found.hasMore, total: found.total };
      })),
      _meta: AWARD_META,
    }),
    'acheteurs.get': async (args) => {
      const buyer = await buyerById(db, args.id.trim());
      const results = buyer ? [buyerRecord(buyer, publicUrl)] : [];
      return { results, next_cursor: null, total_estimated: results.length, _meta: BUYER_META };
    },
    'acheteurs.search': async (args) => ({
      ...(await pagedSearch('acheteurs.search', args, cursorKey, async (page) => {
        const found = await searchBuyers(db, { words: args.query, siret: args.siret }, page);
        const buyers = await Promise.all(found.ids.map((id) => buyerById(db, id)));
        return { records: buyers.filter((b): b is BuyerView => b !== null).map((b) => buyerRecord(b, publicUrl)), hasMore: found.hasMore, total: found.total };
      })),
      _meta: BUYER_META,
    }),
  };
}
