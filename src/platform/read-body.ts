// Reads a JSON request body under the spec's limits (3 MiB, 30 seconds), for REST and MCP.
import type { IncomingMessage } from 'node:http';
import { BodyTimeoutError, BodyTooLargeError, InvalidJsonError, UnsupportedMediaTypeError } from '../errors.js';

export interface BodyLimits {
  bodyBytes: number;
  bodyTimeoutMs: number;
}

export function isJsonContentType(header: string | undefined): boolean {
  if (!header) return false;
  const type = header.split(';')[0]?.trim().toLowerCase();
  return type === 'application/json' || (type !== undefined && /^application\/[a-z0-9.+-]+\+json$/.test(type));
}

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

/** The body as JSON: 415 unless declared JSON, 413/408 past the limits, 400 when unreadable. */
export async function readJsonBody(req: IncomingMessage, limits: BodyLimits): Promise<unknown> {
  if (!isJsonContentType(req.headers['content-type'])) throw new UnsupportedMediaTypeError();
  const raw = await readRawBody(req, limits);
  const text = raw.toString('utf8');
  if (!text.trim()) throw new InvalidJsonError("Corps vide : envoyer un objet JSON ({} quand l'opération n'a pas d'argument).");
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new InvalidJsonError();
  }
}
