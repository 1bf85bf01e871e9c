// Every error the service answers, one class per wire code and HTTP status. Transports
// render them (REST error body, JSON-RPC error or MCP tool error); nothing else decides
// a status or a code.

export const API_CONTRACT_VERSION = '3.0.0';

/** How the MCP transport reports the error: a JSON-RPC error, or a tool result with isError. */
export type McpRendering = { kind: 'protocol'; code: number; httpStatus: number } | { kind: 'tool' };

export abstract class ServiceError extends Error {
  abstract readonly code: string;
  abstract readonly status: number;
  readonly retryAfterSeconds: number | null;
  readonly mcp: McpRendering = { kind: 'tool' };
  constructor(message: string, retryAfterSeconds: number | null = null) {
    super(message);
    this.retryAfterSeconds = retryAfterSeconds;
  }
  override get name(): string {
    return this.constructor.name;
  }
}

export class InvalidArgumentsError extends ServiceError {
  readonly code = 'invalid_arguments';
  readonly status = 400;
}
export class InvalidCursorError extends ServiceError {
  readonly code = 'invalid_cursor';
  readonly status = 400;
  constructor(message = 'Curseur invalide : réutiliser un curseur exactement tel que renvoyé.') {
    super(message);
  }
}
export class InvalidJsonError extends ServiceError {
  readonly code = 'invalid_json';
  readonly status = 400;
  override readonly mcp: McpRendering = { kind: 'protocol', code: -32700, httpStatus: 400 };
  constructor(message = 'Corps illisible : le JSON est mal formé.') {
    super(message);
  }
}
export class InvalidBodyError extends ServiceError {
  readonly code = 'invalid_body';
  readonly status = 400;
  override readonly mcp: McpRendering = { kind: 'protocol', code: -32600, httpStatus: 400 };
}
export class BodyTimeoutError extends ServiceError {
  readonly code = 'invalid_body';
  readonly status = 408;
  override readonly mcp: McpRendering = { kind: 'protocol', code: -32600, httpStatus: 408 };
  constructor(seconds: number) {
    super(`Corps de requête non reçu en ${seconds} secondes.`);
  }
}
export class BodyTooLargeError extends ServiceError {
  readonly code = 'invalid_body';
  readonly status = 413;
  override readonly mcp: McpRendering = { kind: 'protocol', code: -32600, httpStatus: 413 };
  constructor(limitBytes: number) {
    super(`Corps de requête trop volumineux : ${Math.round(limitBytes / 1024 / 1024)} Mio au plus.`);
  }
}
export class UnauthenticatedError extends ServiceError {
  readonly code = 'unauthenticated';
  readonly status = 401;
  override readonly mcp: McpRendering = { kind: 'protocol', code: -32001, httpStatus: 401 };
}
export class InsufficientScopeError extends ServiceError {
  readonly code = 'insufficient_scope';
  readonly status = 403;
  override readonly mcp: McpRendering = { kind: 'protocol', code: -32003, httpStatus: 403 };
  readonly scope: string;
  constructor(scope: string) {
    super(`Portée OAuth manquante : cette action exige la portée « ${scope} ».`);
    this.scope = scope;
  }
}
export class AccessDeniedError extends ServiceError {
  readonly code = 'access_denied';
  readonly status = 403;
}
export class UserRequiredError extends ServiceError {
  readonly code = 'user_required';
  readonly status = 403;
}
export class OrganizationRequiredError extends ServiceError {
  readonly code = 'organization_required';
  readonly status = 403;
}
export class RoleDeniedError extends ServiceError {
  readonly code = 'role_denied';
  readonly status = 403;
}
export class OriginDeniedError extends ServiceError {
  readonly code = 'origin_denied';
  readonly status = 403;
  override readonly mcp: McpRendering = { kind: 'protocol', code: -32600, httpStatus: 403 };
}
export class NotFoundError extends ServiceError {
  readonly code = 'not_found';
  readonly status = 404;
}
export class MethodNotAllowedError extends ServiceError {
  readonly code = 'method_not_allowed';
  readonly status = 405;
  override readonly mcp: McpRendering = { kind: 'protocol', code: -32000, httpStatus: 405 };
}
export class ConflictError extends ServiceError {
  readonly code = 'conflict';
  readonly status = 409;
}
export class UnsupportedMediaTypeError extends ServiceError {
  readonly code = 'unsupported_media_type';
  readonly status = 415;
  override readonly mcp: McpRendering = { kind: 'protocol', code: -32600, httpStatus: 415 };
  constructor(message = 'Type de contenu non pris en charge : envoyer application/json.') {
    super(message);
  }
}
export class QuotaExceededError extends ServiceError {
  readonly code = 'quota_exceeded';
  readonly status = 429;
  // On MCP the call ceilings are JSON-RPC -32004 in an HTTP 200 answer (with Retry-After),
  // so clients read the code; the consultation ceiling is a tool error.
  constructor(message: string, retryAfterSeconds: number | null, rendering: McpRendering = { kind: 'protocol', code: -32004, httpStatus: 200 }) {
    super(message, retryAfterSeconds);
    this.mcp = rendering;
  }
  override readonly mcp: McpRendering;
}
export class UnavailableError extends ServiceError {
  readonly code = 'unavailable';
  readonly status = 503;
  override readonly mcp: McpRendering = { kind: 'protocol', code: -32603, httpStatus: 200 };
  constructor(message = 'Service momentanément indisponible : réessayer plus tard.', retryAfterSeconds: number | null = 5) {
    super(message, retryAfterSeconds);
  }
}
export class QuotaUnavailableError extends ServiceError {
  readonly code = 'quota_unavailable';
  readonly status = 503;
  override readonly mcp: McpRendering = { kind: 'protocol', code: -32603, httpStatus: 200 };
  constructor(message = 'Comptage des quotas momentanément indisponible : réessayer plus tard.', retryAfterSeconds: number | null = 5) {
    super(message, retryAfterSeconds);
  }
}
export class TimeoutError extends ServiceError {
  readonly code = 'timeout';
  readonly status = 504;
  override readonly mcp: McpRendering = { kind: 'protocol', code: -32603, httpStatus: 200 };
  constructor(seconds: number) {
    super(`L'opération a dépassé ${seconds} secondes ; vérifier son effet avant de rejouer une écriture.`);
  }
}

/** The REST error body of the spec. */
export function errorBody(err: ServiceError): { error: { code: string; message: string; retry_after_seconds?: number | null }; api_contract_version: string } {
  const error: { code: string; message: string; retry_after_seconds?: number | null } = { code: err.code, message: err.message };
  if (err.retryAfterSeconds !== null) error.retry_after_seconds = err.retryAfterSeconds;
  return { error, api_contract_version: API_CONTRACT_VERSION };
}

/** Anything thrown that is not ours becomes `unavailable`: no stack, SQL or path leaves. */
export function asServiceError(err: unknown): ServiceError {
  if (err instanceof ServiceError) return err;
  return new UnavailableError();
}
