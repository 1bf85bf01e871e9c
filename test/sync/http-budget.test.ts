// A source's request budget holds over any window, not only over fixed ones: never more than its requests (SIRENE: 30) within any span of its window (a minute), the first ones sent at once.
import { expect } from 'chai';
import { SyncHttp } from '../../src/sync/http.js';
import { startReplayServer, type ReplayServer } from '../helpers/replay-server.js';

describe('sync HTTP: request budget', () => {
  let replay: ReplayServer;
  let clock: number;
  let sent: number[];

  beforeEach(async () => {
    clock = 0;
    sent = [];
    replay = await startReplayServer(() => {
      sent.push(clock);
      return { json: { ok: true } };
    });
  });
  afterEach(() => replay.close());

  it('sends 30 at once, then never a 31st within the same minute, whatever the pauses between them', async () => {
    const http = new SyncHttp({
      budget: { requests: 30, perMs: 60_000 },
      now: () => clock,
      sleep: async (ms) => {
        clock += ms;
      },
    });
    for (let i = 0; i < 95; i++) {
      await http.getJson(`${replay.url}/page`);
      // Irregular work between requests (pages written), so that fixed windows would let bursts through.
      clock += i % 7 === 0 ? 9_000 : 137;
    }
    expect(sent).to.have.length(95);
    expect(sent[29]).to.be.below(60_000);
    for (let i = 0; i + 30 < sent.length; i++) expect((sent[i + 30] as number) - (sent[i] as number)).to.be.at.least(60_000);
  });
});
