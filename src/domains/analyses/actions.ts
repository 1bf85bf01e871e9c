// Analyses of the imported public data: the market-brand report of a company (awards it
// won, by year, buyer, CPV group, department; win streaks; its share of its markets; RGE),
// who wins a market (competitors) and the distribution of awarded amounts (reference prices).
// Each reads up to tens of thousands of awards (300 ms for the construction CPVs over 600,000
// awards): on SQLite its reads go to the reading threads, off the event loop.
import { euros } from '../../platform/french-numbers.js';
import type { Caller } from '../../access/caller.js';
import { parisDay } from '../../platform/paris-time.js';
import { companyBySiren } from '../companies/store.js';
import { latestTurnoverText, loadCompanyExtras } from '../companies/actions.js';
import type { Services } from '../context.js';
import type { HandlerMap, OperationResults } from '../../../generated/handler-map.js';
import { cents, cpvFamily, cpvFamilyLabel, tally, winStreaks, yearOf } from './report.js';
import { InvalidArgumentsError } from '../../errors.js';
import { departementsOf } from '../reference/lists.js';
import { QUANTILE_METHOD, distribution } from './quantiles.js';
import { offLoopEach } from '../../platform/db/sqlite-readers.js';
import { REPORT_AWARD_CAP, awardsInMarket, awardsWonBy, countMarketAwards, marketAmounts, marketWins, winnerName, type MarketWin, type Period } from './store.js';

/** Competitors: at most this many awards (the most recent) are analysed. */
const COMPETITOR_AWARD_CAP = 20_000;
/** Reference prices: at most this many amounts (the most recent). */
const PRICE_AMOUNT_CAP = 50_000;
const DECP_META = { sources: ['Données essentielles de la commande publique (DECP)'], methode_quantiles: QUANTILE_METHOD };

type AnalysisActions = Pick<HandlerMap<Caller>, 'marque.rapport' | 'concurrents.search' | 'prix.stats'>;
type BrandReport = OperationResults['marque.rapport']['results'][number];

const REPORT_META = {
  sources: [
    'Données essentielles de la commande publique (DECP)',
    'Répertoire SIRENE (INSEE)',
    'Liste des entreprises RGE (ADEME)',
    'Registre national des entreprises (INPI), dirigeants et capital',
    'Ratios financiers BCE/INPI, comptes annuels publiés',
    'BODACC, procédures collectives (DILA)',
  ],
};
const plural = (n: number, word: string) => `${n} ${word}${n > 1 ? 's' : ''}`;

export function analysisActions({ db, publicUrl, now }: Services): AnalysisActions {
  return offLoopEach<AnalysisActions>(db, {
    'marque.rapport': async (args) => {
      const period: Period = { from: args.notifie_depuis, to: args.notifie_avant };
      const [view, fetched, extras] = await Promise.all([
        companyBySiren(db, args.siren, parisDay(now())),
        awardsWonBy(db, args.siren, period, REPORT_AWARD_CAP),
        loadCompanyExtras(db, args.siren, publicUrl),
      ]);
      if (!view && !fetched.length) return { results: [], next_cursor: null, total_estimated: 0, _meta: REPORT_META };
      const tronque = fetched.length > REPORT_AWARD_CAP;
      const won = fetched.slice(0, REPORT_AWARD_CAP);
      const name = (view?.company ? (view.company.denomination ?? view.company.nom_personne) : null) ?? view?.establishment?.enseigne ?? (await winnerName(db, args.siren));

      const years = tally(won, yearOf).sort((a, b) => Number(a.key) - Number(b.key));
      const families = tally(won, (a) => cpvFamily(a.cpv));
      const departements = tally(won, (a) => a.departement);
      const markets = tally(won, (a) => {
        const f = cpvFamily(a.cpv);
        return f && a.departement ? `${f}|${a.departement}` : null;
      }).slice(0, 10);
      const buyers = tally(won, (a) => a.buyer_id ?? (a.buyer_name ? `nom:${a.buyer_name}` : null)).slice(0, 10);
      const buyerNames = new Map(won.map((a) => [a.buyer_id ?? `nom:${a.buyer_name}`, a.buyer_name]));
      const parts = [];
      for (const m of markets) {
        const [famille, departement] = m.key.split('|') as [string, string];
        const attributions = await awardsInMarket(db, famille, departement, period);
        parts.push({ famille, departement, gagnes: m.nombre, attributions, part: attributions ? Math.round((m.nombre / attributions) * 10_000) / 10_000 : 0 });
      }
      const total = cents(won.reduce((s, a) => s + (a.montant ?? 0), 0));
      const dates = won.map((a) => a.date_notification).filter((d): d is string => !!d).sort();
      const streaks = winStreaks(years.map((y) => Number(y.key)));
      const longest = streaks.reduce((m, s) => Math.max(m, s.annees), 0);
      const domaines = [...new Set((view?.rge ?? []).map((r) => r.domaine))].sort();
      const turnover = latestTurnoverText(extras.evolution_ca);

      const report: BrandReport = {
        id: args.siren,
        titre: `Rapport de marque — ${name ?? `SIREN ${args.siren}`}`,
        resume:
          `${plural(won.length, 'marché')} gagné${won.length > 1 ? 's' : ''}${won.length ? ` pour ${euros(total)}` : ''}` +
          (dates.length ? ` entre le ${dates[0]} et le ${dates.at(-1)}` : '') +
          (families[0] ? `, surtout en CPV ${families[0].key}` : '') +
          (departements[0] ? ` et dans le département ${departements[0].key}` : '') +
          (longest > 1 ? ` ; plus longue série : ${longest} années consécutives` : '') +
          (domaines.length ? ` ; ${plural(domaines.length, 'domaine')} RGE en cours` : '') +
          (turnover ? ` ; ${turnover}` : '') +
          (extras.dirigeants.length ? ` ; ${plural(extras.dirigeants.length, 'dirigeant')} connu${extras.dirigeants.length > 1 ? 's' : ''}` : '') +
          (extras.procedures_collectives[0] ? ` ; procédure collective publiée le ${extras.procedures_collectives[0].date_parution}` : '') +
          '.',
        fields: {
          siren: args.siren,
          raison_sociale: name,
          periode: { debut: dates[0] ?? null, fin: dates.at(-1) ?? null },
          marches_gagnes: won.length,
          montant_total: total,
          tronque,
          par_annee: years.map((y) => ({ annee: Number(y.key), nombre: y.nombre, montant_total: y.montant_total })),
          acheteurs: buyers.map((b) => ({ acheteur_id: b.key.startsWith('nom:') ? null : b.key, nom: buyerNames.get(b.key) ?? null, nombre: b.nombre, montant_total: b.montant_total })),
          familles_cpv: families.slice(0, 20).map((f) => ({ famille: f.key, libelle: cpvFamilyLabel(f.key), nombre: f.nombre, montant_total: f.montant_total })),
          departements: departements.slice(0, 110).map((d) => ({ departement: d.key, nombre: d.nombre, montant_total: d.montant_total })),
          series: streaks.slice(-100),
          parts,
          rge_domaines: domaines.slice(0, 100),
          ...extras,
          url: `${publicUrl}/rapports/marque/${args.siren}`,
        },
      };
      return { results: [report], next_cursor: null, total_estimated: 1, _meta: REPORT_META };
    },

    'concurrents.search': async (args) => {
      if (!args.cpv?.length && !args.acheteur_siret)
        throw new InvalidArgumentsError('Préciser au moins « cpv » (débuts de codes CPV) ou « acheteur_siret » : sans l’un ni l’autre, le marché analysé serait tout le pays.');
      const departements = departementsOf(args.departements, args.region);
      const { wins, awards, truncated } = await marketWins(
        db,
        { cpvPrefixes: args.cpv, departements, acheteurSiret: args.acheteur_siret, from: args.notifie_depuis, to: args.notifie_avant },
        COMPETITOR_AWARD_CAP,
      );
      const bySiren = new Map<string, MarketWin[]>();
      for (const w of wins) {
        const list = bySiren.get(w.siren);
        if (list) list.push(w);
        else bySiren.set(w.siren, [w]);
      }
      const ranked = [...bySiren]
        .map(([siren, list]) => ({ siren, list, total: cents(list.reduce((s, w) => s + (w.montant ?? 0), 0)) }))
        .sort((x, y) => y.list.length - x.list.length || y.total - x.total || (x.siren < y.siren ? -1 : 1));
      const concurrents = ranked.slice(0, args.limit ?? 20).map(({ siren, list, total }) => {
        const named = list.find((w) => w.denomination)?.denomination ?? null;
        const dates = list.map((w) => w.date_notification).filter((d): d is string => !!d).sort();
        return {
          siren,
          denomination: named,
          marches_gagnes: list.length,
          part: awards ? Math.round((list.length / awards) * 10_000) / 10_000 : 0,
          montant_total: total,
          montants: distribution(list.map((w) => w.montant)),
          derniere_attribution: dates.at(-1) ?? null,
          url: `${publicUrl}/entreprises/${siren}`,
        };
      });
      return { concurrents, titulaires_total: bySiren.size, attributions_total: awards, tronque: truncated, _meta: DECP_META };
    },

    'prix.stats': async (args) => {
      const filters = { cpvPrefixes: args.cpv, departements: departementsOf(args.departements, args.region), from: args.notifie_depuis, to: args.notifie_avant };
      const [fetched, total] = await Promise.all([marketAmounts(db, filters, PRICE_AMOUNT_CAP), countMarketAwards(db, filters)]);
      const amounts = fetched.slice(0, PRICE_AMOUNT_CAP);
      const byYear = new Map<number, number[]>();
      for (const a of amounts) {
        const year = a.date_notification && /^[0-9]{4}/.test(a.date_notification) ? Number(a.date_notification.slice(0, 4)) : null;
        if (year === null) continue;
        const values = byYear.get(year);
        if (values) values.push(a.montant);
        else byYear.set(year, [a.montant]);
      }
      return {
        distribution: distribution(amounts.map((a) => a.montant)),
        par_annee: [...byYear]
          .sort(([a], [b]) => a - b)
          .slice(-100)
          .map(([annee, values]) => ({ annee, distribution: distribution(values) })),
        attributions_total: total,
        tronque: fetched.length > PRICE_AMOUNT_CAP,
        _meta: DECP_META,
      };
    },
  });
}
