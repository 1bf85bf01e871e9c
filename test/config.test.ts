// The settings read from the environment: SQLITE_READ_THREADS defaults to 3 for a lone API process and to none for several, PG_PARALLEL_WORKERS to 0; each takes 0 or a positive count, and a bad value stops the start naming the variable.
import { expect } from 'chai';
import { loadConfig } from '../src/config.js';

describe('configuration from the environment', () => {
  it('reads SQLITE_READ_THREADS: by default 3 for one API process and none for several, 0 for none, a positive count as given', () => {
    expect(loadConfig({ WORKERS: '1' }).sqliteReadThreads).to.equal(3);
    expect(loadConfig({ WORKERS: '1', SQLITE_READ_THREADS: '' }).sqliteReadThreads).to.equal(3);
    expect(loadConfig({ WORKERS: '2' }).sqliteReadThreads).to.equal(0);
    expect(loadConfig({ WORKERS: '1', SQLITE_READ_THREADS: '0' }).sqliteReadThreads).to.equal(0);
    expect(loadConfig({ WORKERS: '4', SQLITE_READ_THREADS: '3' }).sqliteReadThreads).to.equal(3);
  });

  it('refuses a SQLITE_READ_THREADS that is not a whole number of threads, naming it', () => {
    for (const value of ['-1', '1.5', 'deux'])
      expect(() => loadConfig({ SQLITE_READ_THREADS: value })).to.throw(`SQLITE_READ_THREADS invalide : ${value}`);
  });

  it('reads PG_PARALLEL_WORKERS: by default 0, a whole number as given', () => {
    expect(loadConfig({}).pgParallelWorkers).to.equal(0);
    expect(loadConfig({ PG_PARALLEL_WORKERS: '' }).pgParallelWorkers).to.equal(0);
    expect(loadConfig({ PG_PARALLEL_WORKERS: '0' }).pgParallelWorkers).to.equal(0);
    expect(loadConfig({ PG_PARALLEL_WORKERS: '2' }).pgParallelWorkers).to.equal(2);
  });

  it('refuses a PG_PARALLEL_WORKERS that is not a whole number of workers, naming it', () => {
    for (const value of ['-1', '1.5', 'deux'])
      expect(() => loadConfig({ PG_PARALLEL_WORKERS: value })).to.throw(`PG_PARALLEL_WORKERS invalide : ${value}`);
  });
});
