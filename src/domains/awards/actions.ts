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

/** An amount of 0 means "not published" (framework agreements without a maximum): never « 0 € ». */
export const AMOUNT_NOT_PUBLISHED = 'montant non publié';

/** The amount in words: « 0 » is « montant non publié ». */
export function amountText(montant: number | null): string | null {
  if (montant === null) return null;
  return montant === 0 ? AMOUNT_NOT_PUBLISHED : euros(montant);
}

export function awardRecord(a: AwardView, publicUrl: string): AwardRecord {
  const winners = a.titulaires.map((t) => t.denomination ?? t.identifiant ?? 'titulaire sans nom').join(', ');
  const amount = amountText(a.montant);
  const amended = a.montant_initial !== null && a.montant !== null && a.montant !== a.montant_initial;
  const amountPart = amount ? ` — ${amount}${amended ? ` après ${a.modifications.length} modification${a.modifications.length > 1 ? 's' : ''} (montant initial ${amountText(a.montant_initial)})` : ''}` : '';
  return {
    id: a.award_key,
    titre: a.objet ?? `Marché ${a.id}`,
    resume: `${a.buyerName ?? 'Acheteur non précisé'}${amountPart}${a.date_notification ? ` — notifié le ${frenchDate(a.date_notification)}` : ''}${
      winners ? ` — titulaire${a.titulaires.length > 1 ? 's' : ''} : ${winners}` : ''
    }${a.source === 'boamp' ? ' — d’après l’avis d’attribution publié au BOAMP' : ''}.`,
    fields: {
      id_decp: a.id,
      source: a.source === 'boamp' ? 'boamp' : 'decp',
      acheteur: a.buyerName,
      acheteur_id: a.buyer_id,
      objet: a.objet,
      cpv: a.cpv,
      procedure: a.procedure,
      nature: a.nature,
      lieu_code: a.lieu_code,
      departement: a.departement,
      montant: a.montant,
      montant_publie: a.montant !== null && a.montant !== 0,
      montant_libelle: amount,
      montant_initial: a.montant_initial,
      date_notification: a.date_notification,
      duree_mois: a.duree_mois,
      duree_mois_initiale: a.duree_mois_initiale,
      forme_prix: a.forme_prix,
      titulaires: a.titulaires,
      modifications: a.modifications.slice(0, 100),
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
            avis: args.avis,
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
