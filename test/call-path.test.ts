// Rule: errors of the layers below the call path get their wire code in one place (wireError), and anything unknown is `unavailable`.
import { expect } from 'chai';
import { wireError } from '../src/call-path.js';
import { ConflictError, InvalidArgumentsError, InvalidCursorError, UnavailableError } from '../src/errors.js';
import { CursorRejectedError, QuerySyntaxError } from '../src/platform/search/errors.js';

describe('call path: wire codes of the lower layers (wireError)', () => {
  const conflict = new ConflictError('Conflit.');
  const cases: { given: unknown; want: { type: unknown; code: string; status: number; message?: string } }[] = [
    { given: new QuerySyntaxError('query', "L'argument « query » ne contient aucun mot à chercher."), want: { type: InvalidArgumentsError, code: 'invalid_arguments', status: 400, message: "L'argument « query » ne contient aucun mot à chercher." } },
    { given: new CursorRejectedError(), want: { type: InvalidCursorError, code: 'invalid_cursor', status: 400, message: 'Curseur invalide : réutiliser un curseur exactement tel que renvoyé.' } },
    { given: new CursorRejectedError('Curseur invalide : autre recherche.'), want: { type: InvalidCursorError, code: 'invalid_cursor', status: 400, message: 'Curseur invalide : autre recherche.' } },
    { given: conflict, want: { type: ConflictError, code: 'conflict', status: 409, message: 'Conflit.' } },
    { given: new Error('SQLITE_BUSY: database is locked at /var/lib/x.sqlite'), want: { type: UnavailableError, code: 'unavailable', status: 503 } },
    { given: 'a thrown string', want: { type: UnavailableError, code: 'unavailable', status: 503 } },
  ];
  for (const { given, want } of cases) {
    it(`${given instanceof Error ? given.name : typeof given} → ${want.code}`, () => {
      const got = wireError(given);
      expect(got).to.be.instanceOf(want.type as never);
      expect(got).to.include({ code: want.code, status: want.status });
      if (want.message) expect(got.message).to.equal(want.message);
      else expect(got.message).to.not.include('SQLITE').and.not.include('/var/');
    });
  }
  it('keeps a service error as it is', () => expect(wireError(conflict)).to.equal(conflict));
});
