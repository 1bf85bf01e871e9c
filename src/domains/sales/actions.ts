// Property sales (DVF): searches by filters, and statistics per commune and kind of sale.
// `url` is the service's own permalink (`/ventes/<id_mutation>`, served by ventes.search
// with the `id_mutation` filter).
import { euros, wholeNumberFr as numberFr } from '../../platform/french-numbers.js';
import type { Caller } from '../../access/caller.js';
import { InvalidArgumentsError } from '../../errors.js';
import { departementsOf } from '../reference/lists.js';
import { MAX_SEARCH_DEPTH, pagedSearch } from '../../platform/search/cursor.js';
import type { Services } from '../context.js';
import type { HandlerMap, OperationResults } from '../../../generated/handler-map.js';
import { saleStats, salesByIds, searchSales, type SaleFilters, type SaleView } from './store.js';

type SaleActions = Pick<HandlerMap<Caller>, 'ventes.search' | 'ventes.stats'>;
type SaleRecord = OperationResults['ventes.search']['results'][number];
type SaleGroup = OperationResults['ventes.stats']['groupes'][number];

const SOURCES = ['Demandes de valeurs foncières (DVF, DGFiP), fichiers geo-dvf'];
const SEARCH_META = { sources: SOURCES, profondeur_max: MAX_SEARCH_DEPTH };
/** Premises and parcels a record gives at most (the contract's maxItems). */
const MAX_LISTED = 200;
/** Groups the statistics give at most (the contract's maxItems). */
const MAX_GROUPS = 500;
/** The natures the statistics count by default: sales; an exchange, an expropriation or an auction is no market price. */
const MARKET_NATURES = ['Vente', "Vente en l'état futur d'achèvement", 'Vente terrain à bâtir'];

const frenchDate = (iso: string) => iso.split('-').reverse().join('/');

const KIND_WORDS: Record<string, [string, string]> = {
  Maison: ['maison', 'maisons'],
  Appartement: ['appartement', 'appartements'],
  Dépendance: ['dépendance', 'dépendances'],
  'Local industriel. commercial ou assimilé': ['local industriel ou commercial', 'locaux industriels ou commerciaux'],
};

function premisesText(s: SaleView): string {
  if (!s.nombre_locaux) return 'sans local';
  const counts = new Map<string, number>();
  for (const l of s.locaux) counts.set(l.type_local, (counts.get(l.type_local) ?? 0) + 1);
  return [...counts]
    .map(([kind, n]) => {
      const words = KIND_WORDS[kind] ?? [kind.toLowerCase(), kind.toLowerCase()];
      return `${n} ${n > 1 ? words[1] : words[0]}`;
    })
    .join(', ');
}

function titleOf(s: SaleView): string {
  const place = s.nom_commune ?? s.code_commune ?? 'commune non précisée';
  if (s.type_local) {
    const pieces = s.nombre_pieces ? ` ${s.nombre_pieces} pièce${s.nombre_pieces > 1 ? 's' : ''}` : '';
    const surface = s.surface_bati ? ` de ${numberFr(s.surface_bati)} m²` : '';
    const kind = s.type_local === 'Local industriel. commercial ou assimilé' ? 'Local industriel ou commercial' : s.type_local;
    return `${kind}${pieces}${surface} — ${place}`;
  }
  if (!s.nombre_locaux) return `Terrain${s.surface_terrain ? ` de ${numberFr(s.surface_terrain)} m²` : ''} — ${place}`;
  return `Locaux de plusieurs types — ${place}`;
}

export function saleRecord(s: SaleView, publicUrl: string): SaleRecord {
  const price = s.valeur_fonciere !== null ? `${euros(s.valeur_fonciere)}${s.prix_m2 !== null ? ` (${euros(s.prix_m2)} le m²)` : ''}` : 'prix non publié';
  const where = [s.adresse, [s.code_postal, s.nom_commune].filter(Boolean).join(' ')].filter(Boolean).join(', ');
  return {
    id: s.id_mutation,
    titre: titleOf(s),
    resume: `${s.nature_mutation} du ${frenchDate(s.date_mutation)} — ${price} — ${premisesText(s)}, ${s.nombre_parcelles} parcelle${s.nombre_parcelles > 1 ? 's' : ''}${where ? ` — ${where}` : ''}.`,
    fields: {
      id_mutation: s.id_mutation,
      date_mutation: s.date_mutation,
      nature_mutation: s.nature_mutation,
      valeur_fonciere: s.valeur_fonciere,
      departement: s.departement,
      code_commune: s.code_commune,
      nom_commune: s.nom_commune,
      code_postal: s.code_postal,
      adresse: s.adresse,
      type_local: s.type_local,
      surface_reelle_bati: s.surface_bati,
      nombre_pieces_principales: s.nombre_pieces,
      prix_m2: s.prix_m2,
      surface_terrain: s.surface_terrain,
      nombre_locaux: s.nombre_locaux,
      nombre_parcelles: s.nombre_parcelles,
      longitude: s.longitude,
      latitude: s.latitude,
      locaux: s.locaux.slice(0, MAX_LISTED),
      parcelles: s.parcelles.slice(0, MAX_LISTED),
      url: `${publicUrl}/ventes/${encodeURIComponent(s.id_mutation)}`,
    },
  };
}

const text = (v: string | null) => v ?? '';
/** Largest groups first, then by commune and kind. */
const byCountThenPlace = (a: SaleGroup, b: SaleGroup) =>
  b.nombre_ventes - a.nombre_ventes || text(a.code_commune).localeCompare(text(b.code_commune)) || text(a.type_local).localeCompare(text(b.type_local));

export function saleActions({ db, publicUrl, cursorKey }: Services): SaleActions {
  return {
    'ventes.search': async (args) => ({
      ...(await pagedSearch('ventes.search', args, cursorKey, async (page) => {
        const filters: SaleFilters = {
          idMutation: args.id_mutation?.trim(),
          departements: departementsOf(args.departements, args.region),
          commune: args.commune,
          typeLocal: args.type_local,
          natures: args.nature_mutation ? [args.nature_mutation] : undefined,
          from: args.depuis,
          to: args.avant,
          prixMin: args.prix_min,
          prixMax: args.prix_max,
          surfaceMin: args.surface_min,
          surfaceMax: args.surface_max,
        };
        const found = await searchSales(db, filters, page);
        return { records: (await salesByIds(db, found.ids)).map((s) => saleRecord(s, publicUrl)), hasMore: found.hasMore, total: found.total };
      })),
      _meta: SEARCH_META,
    }),
    'ventes.stats': async (args) => {
      const departements = departementsOf(args.departements, args.region);
      if (!departements.length && !args.commune)
        throw new InvalidArgumentsError('ventes.stats : un territoire est exigé : `departements`, `region` ou `commune` (code INSEE ou code postal).');
      const filters: SaleFilters = {
        departements,
        commune: args.commune,
        typeLocal: args.type_local,
        natures: args.nature_mutation ? [args.nature_mutation] : MARKET_NATURES,
        from: args.depuis,
        to: args.avant,
      };
      const groups = (await saleStats(db, filters)).sort(byCountThenPlace);
      return {
        groupes: groups.slice(0, MAX_GROUPS),
        groupes_total: groups.length,
        ventes_total: groups.reduce((n, g) => n + g.nombre_ventes, 0),
        _meta: { sources: SOURCES },
      };
    },
  };
}
