// Reads a JSON request body under the spec's limits (3 MiB, 30 seconds), for REST and MCP.
import type { IncomingMessage } from 'node:http';
import { BodyTimeoutError, BodyTooLargeError, InvalidJsonError, UnsupportedMediaTypeError } from '../errors.js';

export interface BodyLimits {
  bodyBytes: number;
  bodyTimeoutMs: number;
}

/**
 * The one body type both transports read: `application/json`, with no charset or with
 * `charset=utf-8` (RFC 8259: JSON exchanged between systems is UTF-8). Other parameters are
 * ignored; a `+json` type or another charset would be read as something it is not.
 */
export function isJsonContentType(header: string | undefined): boolean {
  if (!header) return false;
  const [type, ...parameters] = header.split(';');
  if (type?.trim().toLowerCase() !== 'application/json') return false;
  return parameters.every((parameter) => {
    const [name, ...rest] = parameter.split('=');
    if (name?.trim().toLowerCase() !== 'charset') return true;
    const value = rest.join('=').trim().replace(/^"(.*)"$/, '$1').toLowerCase();
    return value === 'utf-8';
  });
}

// fatal: a byte sequence that is not UTF-8 is refused rather than replaced by U+FFFD;
// ignoreBOM: a byte order mark stays in the text, which JSON does not allow (as before).
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

export function readRawBody(req: IncomingMessage, limits: BodyLimits): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limits.bodyBytes) return Promise.reject(new BodyTooLargeError(limits.bodyBytes));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = (fn: () => void) => {
      clearTimeout(timer);
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      fn();
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limits.bodyBytes) finish(() => reject(new BodyTooLargeError(limits.bodyBytes)));
      else chunks.push(chunk);
    };
    const onEnd = () => finish(() => resolve(Buffer.concat(chunks)));
    const onError = () => finish(() => reject(new BodyTimeoutError(Math.ceil(limits.bodyTimeoutMs / 1000))));
    const timer = setTimeout(() => finish(() => reject(new BodyTimeoutError(Math.ceil(limits.bodyTimeoutMs / 1000)))), limits.bodyTimeoutMs);
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
  });
}

/** The body as JSON: 415 unless declared JSON in UTF-8, 413/408 past the limits, 400 when not UTF-8 or unreadable. */
export async function readJsonBody(req: IncomingMessage, limits: BodyLimits): Promise<unknown> {
  if (!isJsonContentType(req.headers['content-type']))
    throw new UnsupportedMediaTypeError('Type de contenu non pris en charge : envoyer application/json, sans charset ou avec charset=utf-8.');
  const raw = await readRawBody(req, limits);
  let text: string;
  try {
    text = utf8.decode(raw);
  } catch {
    throw new InvalidJsonError("Corps illisible : il n'est pas encodé en UTF-8 valide.");
  }
  if (!text.trim()) throw new InvalidJsonError("Corps vide : envoyer un objet JSON ({} quand l'opération n'a pas d'argument).");
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new InvalidJsonError();
  }
}
