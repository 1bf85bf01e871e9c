// Sends a case's bytes as they are, over REST and over MCP (raw HTTP: an MCP client
// library would refuse or reshape what the fuzzer must send).
import type { FuzzCase } from './generate.js';

export interface Answer {
  /** 0 when no answer came (connection closed, timeout). */
  status: number;
  text: string;
  json: unknown;
  /** Why no answer came. */
  failure?: string;
}

const ANSWER_TIMEOUT_MS = 30_000;

async function send(url: string, init: { method: string; headers: Record<string, string>; body: Buffer | null }): Promise<Answer> {
  try {
    const res = await fetch(url, {
      method: init.method,
      headers: init.headers,
      // A Uint8Array body gets no Content-Type of fetch's own: the case decides it, or its absence.
      ...(init.body ? { body: new Uint8Array(init.body) } : {}),
      signal: AbortSignal.timeout(ANSWER_TIMEOUT_MS),
    });
    const text = Buffer.from(await res.arrayBuffer()).toString('utf8');
    let json: unknown;
    try {
      json = text ? (JSON.parse(text) as unknown) : undefined;
    } catch {
      json = undefined;
    }
    return { status: res.status, text, json };
  } catch (err) {
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    return { status: 0, text: '', json: undefined, failure: `${(err as Error).message}${cause ? ` (${cause.code ?? cause.message ?? ''})` : ''}` };
  }
}

export function sendRest(base: string, token: string, c: FuzzCase): Promise<Answer> {
  const headers: Record<string, string> = { authorization: `Bearer ${token}` };
  if (c.rest.contentType !== null) headers['content-type'] = c.rest.contentType;
  return send(`${base}/api/mcp/v1/${c.operation.name}${c.rest.query}`, { method: c.rest.method, headers, body: c.rest.body });
}

export function sendMcp(base: string, token: string, c: FuzzCase): Promise<Answer> {
  const headers: Record<string, string> = { authorization: `Bearer ${token}`, accept: 'application/json, text/event-stream' };
  if (c.mcp.contentType !== null) headers['content-type'] = c.mcp.contentType;
  return send(`${base}${c.mcp.path}`, { method: 'POST', headers, body: c.mcp.body });
}
