// Analyses of the imported public data: the market-brand report of a company (awards it
// won, by year, buyer, CPV group, department; win streaks; its share of its markets; RGE).
import type { Caller } from '../../access/caller.js';
import { parisDay } from '../../platform/paris-time.js';
import { companyBySiren } from '../companies/store.js';
import type { Services } from '../context.js';
import type { HandlerMap, OperationResults } from '../../../generated/handler-map.js';
import { cents, cpvFamily, cpvFamilyLabel, tally, winStreaks, yearOf } from './report.js';
import { REPORT_AWARD_CAP, awardsInMarket, awardsWonBy, winnerName, type Period } from './store.js';

type AnalysisActions = Pick<HandlerMap<Caller>, 'marque.rapport'>;
type BrandReport = OperationResults['marque.rapport']['results'][number];

const REPORT_META = { sources: ['Données essentielles de la commande publique (DECP)', 'Répertoire SIRENE (INSEE)', 'Liste des entreprises RGE (ADEME)'] };
const euros = (n: number) => `${new Intl.NumberFormat('fr-FR', { maximumFractionDigits: 0 }).format(n)} €`;
const plural = (n: number, word: string) => `${n} ${word}${n > 1 ? 's' : ''}`;

export function analysisActions({ db, publicUrl, now }: Services): AnalysisActions {
  return {
    'marque.rapport': async (args) => {
      const period: Period = { from: args.notifie_depuis, to: args.notifie_avant };
      const [view, fetched] = await Promise.all([companyBySiren(db, args.siren, parisDay(now())), awardsWonBy(db, args.siren, period, REPORT_AWARD_CAP)]);
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
          url: `${publicUrl}/rapports/marque/${args.siren}`,
        },
      };
      return { results: [report], next_cursor: null, total_estimated: 1, _meta: REPORT_META };
    },
  };
}
