// Rule: a frozen copy is frozen at every level and leaves its source as it was; what is derived from a frozen result is derived once, from an unfrozen one every time.
import { expect } from 'chai';
import { DerivedFromFrozen, frozenCopy } from '../../src/platform/frozen.js';

describe('frozen results', () => {
  it('a frozen copy is frozen at every level and leaves its source as it was', () => {
    const source = { a: [{ b: 1 }] };
    const copy = frozenCopy(source);
    expect(copy).to.deep.equal(source);
    expect(Object.isFrozen(copy) && Object.isFrozen(copy.a) && Object.isFrozen(copy.a[0])).to.equal(true);
    expect(Object.isFrozen(source) || Object.isFrozen(source.a) || Object.isFrozen(source.a[0])).to.equal(false);
  });

  it('derives once from a frozen result, every time from an unfrozen one', () => {
    let runs = 0;
    const derived = new DerivedFromFrozen((r) => (runs++, JSON.stringify(r)));
    const frozen = frozenCopy({ n: 1 });
    expect([derived.of(frozen), derived.of(frozen)]).to.deep.equal(['{"n":1}', '{"n":1}']);
    expect(runs).to.equal(1);
    const open = { n: 1 };
    derived.of(open);
    open.n = 2;
    expect(derived.of(open)).to.equal('{"n":2}');
    expect(runs).to.equal(3);
  });
});
