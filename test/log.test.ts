// Rule: logs carry no caller value and no SQL: an error line says the error's kind, code and a bounded message; every field is cut.
import { Writable } from 'node:stream';
import { expect } from 'chai';
import { boundedRecord, createLogger, errorSummary, MAX_LOG_FIELD } from '../src/log.js';

class CodedError extends Error {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
  }
}

describe('log: error summaries and bounded lines', () => {
  const cases: { given: unknown; want: { type: string; code?: string; message: string } }[] = [
    {
      given: new CodedError(`insert into "alerts" ("name") values ('${'x'.repeat(1000)}') - SQLITE_BUSY: database is locked`, 'SQLITE_BUSY'),
      want: { type: 'CodedError', code: 'SQLITE_BUSY', message: 'SQLITE_BUSY: database is locked' },
    },
    {
      given: new CodedError('select * from "notices" where "marche_id" = $1 - invalid input syntax for type uuid: "secret-value"', '22P02'),
      want: { type: 'CodedError', code: '22P02', message: 'invalid input syntax for type uuid: …' },
    },
    { given: new Error("valeur 'privée' refusée"), want: { type: 'Error', message: 'valeur … refusée' } },
    { given: 'a string', want: { type: 'string', message: '(valeur non-Error)' } },
  ];
  for (const { given, want } of cases) {
    it(`summarises ${given instanceof Error ? given.message.slice(0, 40) : String(given)}`, () => expect(errorSummary(given)).to.deep.equal(want));
  }

  it('cuts a long message to 200 characters', () => {
    expect(errorSummary(new Error('é'.repeat(5000))).message.length).to.be.lessThan(240);
  });

  it('cuts every string field, one level deep, and leaves other values', () => {
    const got = boundedRecord({ a: 'x'.repeat(10_000), n: 3, nested: { b: 'y'.repeat(10_000), keep: true } }) as { a: string; n: number; nested: { b: string; keep: boolean } };
    expect(got.a.length).to.be.lessThan(MAX_LOG_FIELD + 40);
    expect(got.nested.b.length).to.be.lessThan(MAX_LOG_FIELD + 40);
    expect(got.n).to.equal(3);
    expect(got.nested.keep).to.equal(true);
  });

  it('the service logger writes bounded lines', () => {
    const lines: string[] = [];
    const sink = new Writable({ write: (chunk, _e, done) => (lines.push(String(chunk)), done()) });
    createLogger('info', sink).error({ err: 'z'.repeat(100_000) }, 'échec');
    expect(lines).to.have.length(1);
    expect(lines[0]?.length).to.be.lessThan(1000);
  });
});
