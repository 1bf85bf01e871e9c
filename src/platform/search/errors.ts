// What the search layer refuses, without any wire code or HTTP status: the call path
// (src/call-path.ts) gives each kind its wire code, in one place.

/** A query outside the service's syntax or limits; `argument` names the argument it came from. */
export class QuerySyntaxError extends Error {
  override readonly name = 'QuerySyntaxError';
  constructor(
    readonly argument: string,
    message: string,
  ) {
    super(message);
  }
}

/** A search cursor we did not issue, altered, issued for another search, or past the search's depth. */
export class CursorRejectedError extends Error {
  override readonly name = 'CursorRejectedError';
  constructor(message = 'Curseur invalide : réutiliser un curseur exactement tel que renvoyé.') {
    super(message);
  }
}
