// A bulkhead runs at most its share of one key's work at once, the next in the order they came, other keys untouched; a run waiting past its limit is refused and leaves the queue.
import { expect } from 'chai';
import { Bulkhead, BulkheadTimeoutError } from '../../src/platform/bulkhead.js';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('bulkhead', () => {
  it('runs a key at most `share` at a time, in order, and other keys at once', async () => {
    const bulkhead = new Bulkhead(2, 5000);
    const order: string[] = [];
    let running = 0;
    let most = 0;
    const work = (name: string) => async () => {
      running++;
      most = Math.max(most, running);
      order.push(name);
      await pause(30);
      running--;
      return name;
    };
    const slow = ['a1', 'a2', 'a3', 'a4'].map((n) => bulkhead.run('a', work(n)));
    // (each run of « a » lasts 30 ms: « b » answers while the first two still run)
    await pause(5);
    expect(bulkhead.load('a')).to.deep.equal({ running: 2, waiting: 2 });
    // Another key is not held by the first one's queue.
    expect(await bulkhead.run('b', async () => 'b')).to.equal('b');
    expect(order).to.deep.equal(['a1', 'a2']);
    expect(await Promise.all(slow)).to.deep.equal(['a1', 'a2', 'a3', 'a4']);
    expect(order).to.deep.equal(['a1', 'a2', 'a3', 'a4']);
    expect(most).to.equal(2);
    expect(bulkhead.load('a')).to.deep.equal({ running: 0, waiting: 0 });
  });

  it('refuses a run that waited past its limit, and keeps serving the others', async () => {
    const bulkhead = new Bulkhead(1, 20);
    const held = bulkhead.run('a', () => pause(80));
    const refused = bulkhead.run('a', async () => 'jamais').catch((err: unknown) => err);
    expect(await refused).to.be.instanceOf(BulkheadTimeoutError);
    expect(bulkhead.load('a')).to.deep.equal({ running: 1, waiting: 0 });
    await held;
    expect(await bulkhead.run('a', async () => 'ensuite')).to.equal('ensuite');
  });

  it('gives the place back when a run fails', async () => {
    const bulkhead = new Bulkhead(1, 1000);
    await bulkhead.run('a', async () => Promise.reject(new Error('échec'))).catch(() => undefined);
    expect(await bulkhead.run('a', async () => 'libre')).to.equal('libre');
  });
});
