// A periodic task never runs twice at once, reports a failed run and keeps its schedule, and stopping waits for the run in progress and ends the schedule.
import { expect } from 'chai';
import { startPeriodicTask } from '../../src/platform/periodic-task.js';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('periodic task', () => {
  it('runs after its first delay, then after each interval, one run at a time', async () => {
    let active = 0;
    let most = 0;
    const task = startPeriodicTask({
      firstAfterMs: 5,
      everyMs: 5,
      run: async () => {
        active += 1;
        most = Math.max(most, active);
        await pause(20);
        active -= 1;
      },
      onFailure: () => expect.fail('no failure expected'),
    });
    await pause(150);
    await task.stop();
    expect(task.runs).to.be.within(2, 7);
    expect(most).to.equal(1);
  });

  it('reports a failure and runs again at its time', async () => {
    const failures: unknown[] = [];
    let calls = 0;
    const task = startPeriodicTask({
      firstAfterMs: 1,
      everyMs: 5,
      run: async () => {
        calls += 1;
        if (calls === 1) throw new Error('base indisponible');
      },
      onFailure: (err) => failures.push(err),
    });
    await pause(60);
    await task.stop();
    expect(failures).to.have.length(1);
    expect(calls).to.be.greaterThan(1);
  });

  it('stop waits for the run in progress, and no run starts after it', async () => {
    let finished = false;
    let calls = 0;
    const task = startPeriodicTask({
      firstAfterMs: 1,
      everyMs: 1,
      run: async () => {
        calls += 1;
        await pause(40);
        finished = true;
      },
      onFailure: () => undefined,
    });
    await pause(10);
    await task.stop();
    expect(finished).to.equal(true);
    const seen = calls;
    await pause(30);
    expect(calls).to.equal(seen);
  });
});
