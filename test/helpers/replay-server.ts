// A replay server for the synchronisation's tests: it answers as the publishers do (their
// exact published shapes, built by the tests from ../shared/real-samples and the published
// layouts) on a local port, and injects the faults they show: 429 with Retry-After, a 500
// then success, a body cut short, a response that stalls, a count that does not match.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';

export interface ReplayRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  /** The request's body (a sign-in's credentials); empty for a GET. */
  body: Buffer;
  /** When it arrived (Date.now()), faults included. */
  at: number;
}

export interface ReplayAnswer {
  status?: number;
  headers?: Record<string, string>;
  /** Sent as JSON (`application/json`). */
  json?: unknown;
  /** Sent as it is. */
  body?: string | Buffer;
  /** Compress the body with gzip (`Content-Encoding: gzip`) when the client accepts it. */
  gzip?: boolean;
}

export type ReplayHandler = (req: ReplayRequest) => ReplayAnswer | Promise<ReplayAnswer>;

/** A fault served instead of (or around) the normal answer, once per matching request until `times` is spent. */
export type Fault =
  | { kind: 'status'; status: number; headers?: Record<string, string>; json?: unknown }
  /** The normal answer's headers and the first `bytes` of its body, then the connection is destroyed. */
  | { kind: 'truncate'; bytes?: number }
  /** The headers are sent, then nothing until the client gives up. */
  | { kind: 'stall' }
  /** The normal answer, transformed (a count that does not match, a record removed). */
  | { kind: 'alter'; alter: (answer: ReplayAnswer) => ReplayAnswer };

export interface ArmedFault {
  match: (req: ReplayRequest) => boolean;
  fault: Fault;
  times: number;
}

export interface ReplayServer {
  url: string;
  /** Every request received, in order. */
  requests: ReplayRequest[];
  /** Arms a fault for the next `times` requests that match. */
  inject: (match: (req: ReplayRequest) => boolean, fault: Fault, times?: number) => void;
  /** Disarms every fault still armed. */
  clearFaults: () => void;
  close: () => Promise<void>;
}

function send(res: ServerResponse, req: IncomingMessage, answer: ReplayAnswer, cut?: number): void {
  const headers: Record<string, string> = { ...answer.headers };
  let body: Buffer = Buffer.alloc(0);
  if (answer.json !== undefined) {
    body = Buffer.from(JSON.stringify(answer.json));
    headers['content-type'] ??= 'application/json; charset=utf-8';
  } else if (answer.body !== undefined) body = Buffer.isBuffer(answer.body) ? answer.body : Buffer.from(answer.body);
  if (answer.gzip && /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''))) {
    body = gzipSync(body);
    headers['content-encoding'] = 'gzip';
  }
  headers['content-length'] = String(body.length);
  res.writeHead(answer.status ?? 200, headers);
  if (cut === undefined) {
    res.end(body);
    return;
  }
  res.write(body.subarray(0, Math.min(cut, Math.max(0, body.length - 1))), () => res.destroy());
}

export async function startReplayServer(handler: ReplayHandler): Promise<ReplayServer> {
  const requests: ReplayRequest[] = [];
  const faults: ArmedFault[] = [];
  const stalled = new Set<ServerResponse>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.once('end', () => answer(req, res, Buffer.concat(chunks)));
  });
  const answer = (req: IncomingMessage, res: ServerResponse, body: Buffer) => {
    const url = new URL(req.url ?? '/', 'http://replay.test');
    const request: ReplayRequest = { method: req.method ?? 'GET', path: url.pathname, query: url.searchParams, headers: req.headers, body, at: Date.now() };
    requests.push(request);
    const armed = faults.find((f) => f.times > 0 && f.match(request));
    if (armed) armed.times -= 1;
    const fault = armed?.fault;
    if (fault?.kind === 'status') {
      send(res, req, { status: fault.status, headers: fault.headers, json: fault.json ?? { error_code: 'Replay', message: `HTTP ${fault.status}` } });
      return;
    }
    Promise.resolve(handler(request)).then(
      (answer) => {
        if (fault?.kind === 'stall') {
          res.writeHead(answer.status ?? 200, { 'content-type': 'application/json' });
          res.flushHeaders();
          stalled.add(res);
          return;
        }
        if (fault?.kind === 'alter') return send(res, req, fault.alter(answer));
        send(res, req, answer, fault?.kind === 'truncate' ? (fault.bytes ?? 40) : undefined);
      },
      (err: Error) => send(res, req, { status: 500, json: { message: err.message } }),
    );
  };
  server.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    inject: (match, fault, times = 1) => faults.push({ match, fault, times }),
    clearFaults: () => void faults.splice(0),
    close: async () => {
      for (const res of stalled) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** An Opendatasoft Explore v2.1 dataset served from records: `/catalog/datasets/{id}`, `/records` and `/exports/json`. */
export interface OdsDataset {
  id: string;
  /** The records (v2.1 shape: the fields at the top level). */
  records: Record<string, unknown>[];
  /** The date field `where` filters on (`dateparution`). */
  dateField: string;
  /** `metas.default.data_processed`. */
  processed: string;
}

/**
 * Answers as the Explore API v2.1 does for the `where=<field> = date'YYYY-MM-DD'` filters,
 * `order_by` on one field, `limit` ≤ 100 and offset + limit ≤ 10,000 (400 beyond, as the
 * portal does); `/exports/json` has no cap.
 */
export function odsHandler(datasets: () => OdsDataset[]): ReplayHandler {
  return (req) => {
    const m = /\/catalog\/datasets\/([^/]+)(\/records|\/exports\/json)?$/.exec(req.path);
    const dataset = m ? datasets().find((d) => d.id === decodeURIComponent(m[1] as string)) : undefined;
    if (!m || !dataset) return { status: 404, json: { error_code: 'DatasetNotFound', message: 'Unknown dataset' } };
    if (!m[2]) return { json: { dataset_id: dataset.id, metas: { default: { title: dataset.id, data_processed: dataset.processed, modified: dataset.processed } } } };
    const where = req.query.get('where') ?? '';
    const day = new RegExp(`^${dataset.dateField} = date'(\\d{4}-\\d{2}-\\d{2})'$`).exec(where)?.[1];
    let rows = day ? dataset.records.filter((r) => String(r[dataset.dateField]).slice(0, 10) === day) : [...dataset.records];
    const orderBy = req.query.get('order_by');
    if (orderBy) rows = [...rows].sort((a, b) => String(a[orderBy]).localeCompare(String(b[orderBy])));
    if (m[2] === '/exports/json') return { json: rows, gzip: true };
    const limit = Number(req.query.get('limit') ?? 10);
    const offset = Number(req.query.get('offset') ?? 0);
    if (limit > 100) return { status: 400, json: { error_code: 'InvalidRESTParameterError', message: `Invalid value for limit API parameter: ${limit} was found but -1 <= limit <= 100 is expected.` } };
    if (offset + limit > 10_000) return { status: 400, json: { error_code: 'InvalidRESTParameterError', message: 'Invalid value for offset API parameter: offset + limit must be lower or equal to 10000.' } };
    return { json: { total_count: rows.length, results: rows.slice(offset, offset + limit) }, gzip: true };
  };
}
