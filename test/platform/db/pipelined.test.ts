// A bulk write's statements go one at a time and in order, each next one built while the one before runs; a failure stops the rest and is thrown; an array's literal is the text pg itself writes.
import { expect } from 'chai';
import { createRequire } from 'node:module';
import { arrayLiteral, pipelined } from '../../../src/platform/db/pipelined.js';

/** pg's own writer of a parameter (what it sends for an array). */
const pgUtils = createRequire(import.meta.url)('pg/lib/utils.js') as { prepareValue: (value: unknown) => unknown };

const tick = () => new Promise<void>((resolve) => setTimeout(resolve, 2));

describe('pipelined statements', () => {
  it('runs one statement at a time, in order, building the next while the one before runs', async () => {
    const events: string[] = [];
    let running = 0;
    const answers: number[] = [];
    await pipelined(
      [1, 2, 3, 4],
      (n) => {
        events.push(`build ${n}`);
        return n * 10;
      },
      async (built) => {
        expect(running).to.equal(0);
        running += 1;
        events.push(`start ${built}`);
        await tick();
        events.push(`end ${built}`);
        running -= 1;
        return built + 1;
      },
      (answer, n) => answers.push(answer * 100 + n),
    );
    expect(events).to.deep.equal(['build 1', 'start 10', 'build 2', 'end 10', 'start 20', 'build 3', 'end 20', 'start 30', 'build 4', 'end 30', 'start 40', 'end 40']);
    expect(answers).to.deep.equal([1101, 2102, 3103, 4104]);
  });

  it('stops at a failure, throws it, and leaves no rejection unhandled', async () => {
    const unhandled: unknown[] = [];
    const listener = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', listener);
    const started: number[] = [];
    try {
      let caught: unknown;
      await pipelined(
        [1, 2, 3],
        (n) => n,
        async (n) => {
          started.push(n);
          if (n === 2) throw new Error('refusé');
          await tick();
          return n;
        },
      ).catch((err: unknown) => (caught = err));
      expect((caught as Error).message).to.equal('refusé');
      expect(started).to.deep.equal([1, 2]);
      await tick();
      expect(unhandled).to.deep.equal([]);
    } finally {
      process.off('unhandledRejection', listener);
    }
  });

  it('writes an array of texts, numbers and booleans as pg does, and leaves any other value to pg', () => {
    const pieces = ['a', '"', '\\', ',', '{', '}', ' ', 'NULL', 'é', '\u{1F600}', "'", '\t', ''];
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    for (let round = 0; round < 300; round++) {
      const values = Array.from({ length: Math.floor(random() * 12) }, () => {
        const kind = random();
        if (kind < 0.1) return null;
        if (kind < 0.15) return undefined;
        if (kind < 0.25) return Math.round((random() - 0.5) * 1e6) / 100;
        if (kind < 0.3) return random() < 0.5;
        return Array.from({ length: Math.floor(random() * 6) }, () => pieces[Math.floor(random() * pieces.length)]).join('');
      });
      expect(arrayLiteral(values)).to.equal(pgUtils.prepareValue(values));
    }
    expect(arrayLiteral([Number.NaN, 1e21, -0])).to.equal(pgUtils.prepareValue([Number.NaN, 1e21, -0]));
    expect(arrayLiteral(['a', new Date(0)])).to.equal(null);
    expect(arrayLiteral([{ a: 1 }])).to.equal(null);
    expect(arrayLiteral([Buffer.from('x')])).to.equal(null);
  });
});
