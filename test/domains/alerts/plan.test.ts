// planAlert tells the truth about an alert: criteria normalised (same meaning, same criteria), departments merged, sources_surveillees, warnings and kind as the spec's Alert rules say.
import { expect } from 'chai';
import { ALERT_SOURCES, planAlert, type PlannedAlert } from '../../../src/domains/alerts/actions.js';
import { InvalidArgumentsError } from '../../../src/errors.js';
import { wireError } from '../../../src/call-path.js';
import type { OperationArgs } from '../../../generated/handler-map.js';

type Args = OperationArgs['alertes.create'];

const ALL = [...ALERT_SOURCES];
const WITHOUT_DEPARTMENTS = ALL.filter((s) => s !== 'attribution' && s !== 'dvf');

// The warnings, recognised by what they say (French, as the handler writes them).
const W = {
  attributionNeedsDepartements: /source « attribution » exige des départements suivis \(« departements »\) : elle n'est pas surveillée/,
  dvfNeedsDepartements: /source « dvf » exige des départements suivis \(« departements »\) : elle n'est pas surveillée/,
  attributionFollowsOnlyDepartements: /source « attribution » ne suit que les départements de « departements » \(le champ « departement » est sans effet sur elle\)/,
  departementNoEffectOnAttribution: /champ « departement » est sans effet sur la source « attribution »/,
  dce: /source « dce ».*dossiers rattachés à un avis de marché localisé/,
  dvfIgnoresTerms: /source « dvf » ne tient pas compte des termes/,
  montantOnlyAttributionNotWatched: /« montant_min » ne s'applique qu'à la source « attribution », qui n'est pas surveillée : il est sans effet/,
  montantNoEffectOnOthers: /« montant_min » ne s'applique qu'à la source « attribution » ; il est sans effet sur/,
};

interface Want {
  sources?: string[];
  watched: string[];
  departements?: string[];
  followed?: string[];
  kind?: 'mots_cles' | 'territoire';
  frequency?: string;
  montantMin?: number | null;
  /** Each pattern matches exactly one warning, and there is no other warning. */
  warnings: RegExp[];
}

const base: Args = { name: 'Couverture', query: 'couverture' };

const table: { given: string; args: Args; want: Want }[] = [
  {
    given: 'defaults (no sources, no departments)',
    args: base,
    want: {
      sources: ALL,
      watched: WITHOUT_DEPARTMENTS,
      departements: [],
      followed: [],
      kind: 'mots_cles',
      frequency: 'daily',
      montantMin: null,
      warnings: [W.attributionNeedsDepartements, W.dvfNeedsDepartements],
    },
  },
  {
    given: 'departement and departements merged, sorted, deduplicated',
    args: { ...base, sources: ['marche'], departement: '75', departements: ['35', '22', '35', '75'] },
    want: { sources: ['marche'], watched: ['marche'], departements: ['22', '35', '75'], followed: ['22', '35', '75'], warnings: [] },
  },
  {
    given: 'departement alone with departements of other codes',
    args: { ...base, sources: ['marche'], departement: '2A', departements: ['971', '01'] },
    want: { watched: ['marche'], departements: ['01', '2A', '971'], followed: ['01', '971'], warnings: [] },
  },
  {
    given: 'departement alone with attribution: attribution follows only departements',
    args: { ...base, sources: ['marche', 'attribution'], departement: '35' },
    want: { sources: ['marche', 'attribution'], watched: ['marche'], departements: ['35'], followed: [], warnings: [W.attributionFollowsOnlyDepartements] },
  },
  {
    given: 'departement alone with attribution and dvf: dvf follows the merged list, attribution does not',
    args: { ...base, sources: ['attribution', 'dvf'], departement: '35' },
    want: { watched: ['dvf'], departements: ['35'], followed: [], kind: 'territoire', warnings: [W.attributionFollowsOnlyDepartements, W.dvfIgnoresTerms] },
  },
  {
    given: 'departements with attribution and dvf: both watched, dvf ignores the terms',
    args: { ...base, sources: ['attribution', 'dvf'], departements: ['29', '22'] },
    want: { sources: ['attribution', 'dvf'], watched: ['attribution', 'dvf'], departements: ['22', '29'], followed: ['22', '29'], kind: 'mots_cles', warnings: [W.dvfIgnoresTerms] },
  },
  {
    given: 'departement and departements with attribution: watched, and departement said to be without effect on it',
    args: { ...base, sources: ['attribution'], departement: '56', departements: ['35'] },
    want: { watched: ['attribution'], departements: ['35', '56'], followed: ['35'], warnings: [W.departementNoEffectOnAttribution] },
  },
  {
    given: 'dce with departements: restricted to files matched to a market',
    args: { ...base, sources: ['dce'], departements: ['35'] },
    want: { watched: ['dce'], warnings: [W.dce] },
  },
  {
    given: 'dce with departement alone: same warning',
    args: { ...base, sources: ['dce', 'marche'], departement: '13' },
    want: { watched: ['marche', 'dce'], departements: ['13'], warnings: [W.dce] },
  },
  {
    given: 'dce without departments: no warning',
    args: { ...base, sources: ['dce'] },
    want: { watched: ['dce'], warnings: [] },
  },
  {
    given: 'montant_min with attribution alone: no warning',
    args: { ...base, sources: ['attribution'], departements: ['35'], montant_min: 50000 },
    want: { watched: ['attribution'], montantMin: 50000, warnings: [] },
  },
  {
    given: 'montant_min with attribution and other sources: without effect on the others',
    args: { ...base, sources: ['marche', 'attribution'], departements: ['35'], montant_min: 0 },
    want: { watched: ['marche', 'attribution'], montantMin: 0, warnings: [W.montantNoEffectOnOthers] },
  },
  {
    given: 'montant_min without attribution: without effect',
    args: { ...base, sources: ['marche', 'dce'], montant_min: 1000 },
    want: { watched: ['marche', 'dce'], montantMin: 1000, warnings: [W.montantOnlyAttributionNotWatched] },
  },
  {
    given: 'montant_min with attribution requested but not watched (no departements)',
    args: { ...base, sources: ['marche', 'attribution'], montant_min: 1000 },
    want: { watched: ['marche'], montantMin: 1000, warnings: [W.attributionNeedsDepartements, W.montantOnlyAttributionNotWatched] },
  },
  {
    given: 'only dvf, with departements: kind territoire',
    args: { ...base, sources: ['dvf'], departements: ['33'] },
    want: { watched: ['dvf'], departements: ['33'], kind: 'territoire', warnings: [W.dvfIgnoresTerms] },
  },
  {
    given: 'sources in any order, duplicated: kept in the spec order, once',
    args: { ...base, sources: ['permis', 'marche', 'permis', 'bodacc'], frequency: 'weekly' },
    want: { sources: ['marche', 'permis', 'bodacc'], watched: ['marche', 'permis', 'bodacc'], frequency: 'weekly', warnings: [] },
  },
];

function checkWarnings(got: string[], want: RegExp[], label: string): void {
  expect(got, label).to.have.length(want.length);
  for (const pattern of want) expect(got.filter((w) => pattern.test(w)), `${label}: ${pattern}`).to.have.length(1);
}

describe('planAlert', () => {
  for (const { given, args, want } of table) {
    it(given, () => {
      const { record, warnings } = planAlert(args);
      if (want.sources) expect(record.sources, 'sources').to.deep.equal(want.sources);
      expect(record.sourcesWatched, 'sources_surveillees').to.deep.equal(want.watched);
      if (want.departements) expect(record.departements, 'departements').to.deep.equal(want.departements);
      if (want.followed) expect(record.departementsFollowed, 'departements followed').to.deep.equal(want.followed);
      expect(record.kind, 'kind').to.equal(want.kind ?? 'mots_cles');
      expect(record.frequency, 'frequency').to.equal(want.frequency ?? 'daily');
      if (want.montantMin !== undefined) expect(record.montantMin, 'montant_min').to.equal(want.montantMin);
      checkWarnings(warnings, want.warnings, given);
      // A watched source is always a requested one; every requested source not watched is explained.
      for (const s of record.sourcesWatched) expect(record.sources).to.include(s);
      for (const s of record.sources.filter((x) => !record.sourcesWatched.includes(x))) expect(warnings.some((w) => w.includes(`« ${s} »`)), s).to.equal(true);
    });
  }

  it('refuses an alert that watches nothing (dvf without departments), naming departements', () => {
    for (const args of [
      { ...base, sources: ['dvf'] },
      { ...base, sources: ['dvf', 'attribution'] },
      { ...base, sources: ['attribution'], departement: '35' },
    ] as Args[]) {
      let caught: unknown;
      try {
        planAlert(args);
      } catch (err) {
        caught = err;
      }
      expect(caught, JSON.stringify(args)).to.be.instanceOf(InvalidArgumentsError);
      expect((caught as InvalidArgumentsError).code).to.equal('invalid_arguments');
      expect((caught as Error).message).to.include('« departements »');
    }
  });

  describe('query normalisation', () => {
    const criteria = (query: string, extra: Partial<Args> = {}): string => planAlert({ ...base, query, ...extra }).record.criteria;

    it('gives the same criteria whatever the spaces, the order and the case of the alternatives', () => {
      const a = criteria('  Couverture ,  toiture ');
      expect(a).to.equal(criteria('toiture,couverture'));
      expect(a).to.equal(criteria('TOITURE, couverture, toiture'));
      expect(planAlert({ ...base, query: '  Couverture ,  toiture ' }).record.query).to.equal('Couverture , toiture');
    });

    it('ignores accents', () => {
      expect(criteria('Couverture')).to.equal(criteria('couvérture'));
    });

    it('tells different criteria apart', () => {
      const a = criteria('couverture');
      expect(criteria('toiture')).to.not.equal(a);
      expect(criteria('couverture', { frequency: 'weekly' })).to.not.equal(a);
      expect(criteria('couverture', { sources: ['marche'] })).to.not.equal(a);
      expect(criteria('couverture', { departements: ['35'] })).to.not.equal(a);
      expect(criteria('couverture', { montant_min: 10 })).to.not.equal(a);
    });

    it('gives the same criteria for the defaults written out (all ten sources, daily) and for sources in another order', () => {
      const a = criteria('couverture');
      expect(criteria('couverture', { sources: [...ALL].reverse(), frequency: 'daily' })).to.equal(a);
      expect(criteria('couverture', { departements: ['35', '22'] })).to.equal(criteria('couverture', { departements: ['22', '35', '22'] }));
    });
    it('tells an exact phrase apart from the same words without quotes', () => {
      expect(criteria('"toiture zinc"')).to.not.equal(criteria('toiture zinc'));
      expect(criteria('"toiture zinc", ardoise')).to.not.equal(criteria('toiture zinc, ardoise'));
    });

    it('refuses a query made only of commas and spaces, naming query (answered invalid_arguments by the call path)', () => {
      for (const query of [',, ,', ' a , ', '!!']) {
        let refusal: unknown;
        try {
          planAlert({ ...base, query });
        } catch (err) {
          refusal = err;
        }
        expect(wireError(refusal), query).to.be.instanceOf(InvalidArgumentsError).and.have.property('message').that.matches(/« query »/);
      }
    });
  });

  it('trims the name, and refuses a name of spaces only', () => {
    const plan: PlannedAlert = planAlert({ ...base, name: '   Mon alerte  ' });
    expect(plan.record.name).to.equal('Mon alerte');
    expect(() => planAlert({ ...base, name: '   ' })).to.throw(InvalidArgumentsError, /« name »/);
  });
});
