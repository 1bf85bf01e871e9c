// The synchronisation's HTTP client, one per source run: an identifying User-Agent, gzip,
// a timeout on the answer's headers and on every read of its body (a stalled publisher never
// holds a run), retries with backoff on 5xx, network errors and bodies cut short, the
// publisher's `Retry-After` and `X-RateLimit-*` honoured, and a fixed request budget per
// source (SIRENE: 30 requests a minute). A refusal (4xx) is never retried in a loop: it ends
// the run with its reason, except 429, which waits as told within a bounded delay.
import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';

export const SYNC_USER_AGENT = 'batidata-api-sync/0.1 (+https://github.com/batidata; synchronisation des données publiques)';

export interface HttpTiming {
  /** Until the answer's status and headers arrive (connection included). */
  headersTimeoutMs: number;
  /** Between two chunks of a body: longer, and the body is taken as stalled. */
  readTimeoutMs: number;
  /** Tries of one request (the first included) on 5xx, network errors and bodies cut short. */
  attempts: number;
  /** First pause between tries, doubled at each one. */
  backoffMs: number;
  /** Longest wait the run accepts on a `Retry-After` or a spent rate limit; past it the run stops, to resume at its next time. */
  maxWaitMs: number;
  /** `429 Too Many Requests` waited for on one request before the run stops (they do not count as tries). */
  maxThrottles: number;
}

export const DEFAULT_HTTP_TIMING: HttpTiming = { headersTimeoutMs: 30_000, readTimeoutMs: 30_000, attempts: 5, backoffMs: 1000, maxWaitMs: 5 * 60_000, maxThrottles: 10 };

/** Requests a source may send within any window of `perMs` (a sliding window). */
export interface RequestBudget {
  requests: number;
  perMs: number;
}

/** A refusal or a fault that ends the run: the reason is French, says what the publisher answered, never a body. */
export class SyncHttpError extends Error {
  override readonly name = 'SyncHttpError';
  constructor(
    message: string,
    readonly status: number | null,
    /** When the publisher asked to come back (a 429 whose delay is past `maxWaitMs`). */
    readonly retryAt: Date | null = null,
  ) {
    super(message);
  }
}

export interface GetOptions {
  headers?: Record<string, string>;
  /** Statuses answered as they are instead of failing (SIRENE's 404 on an empty day, 304 of a conditional GET). */
  accept?: number[];
}

/** A request's method and body (a sign-in sends its credentials by POST). */
interface RequestOptions extends GetOptions {
  method?: 'GET' | 'POST';
  body?: string;
}

export interface JsonAnswer<T> {
  status: number;
  body: T | null;
  headers: Headers;
}

export interface StreamAnswer {
  status: number;
  headers: Headers;
  /** The body (decompressed), its reads under the read timeout; null for an accepted status without body. */
  stream: Readable | null;
}

export interface SyncHttpDeps {
  timing?: Partial<HttpTiming>;
  budget?: RequestBudget;
  /** Called before each request: the engine renews the run's lease during long fetches. */
  beforeRequest?: () => Promise<void>;
  /** Pauses (tests shorten them). */
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
  /** Longest JSON body read in memory (a page of records). */
  maxJsonBytes?: number;
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Seconds or an HTTP date, as `Retry-After` says; null when absent or unreadable. */
export function retryAfterMs(value: string | null, nowMs: number): number | null {
  if (!value) return null;
  const seconds = Number(value.trim());
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - nowMs);
}

/**
 * How long to wait before the next request by the `X-RateLimit-*` headers: when none is
 * left, until the reset (epoch seconds or an ISO date, as the Opendatasoft portals send it).
 */
export function rateLimitWaitMs(headers: Headers, nowMs: number): number {
  const remaining = headers.get('x-ratelimit-remaining');
  if (remaining === null || Number(remaining) > 0) return 0;
  const reset = headers.get('x-ratelimit-reset');
  if (!reset) return 0;
  const n = Number(reset);
  // Epoch seconds when large, else seconds from now.
  const at = Number.isFinite(n) ? (n > 1e9 ? n * 1000 : nowMs + n * 1000) : Date.parse(reset);
  return Number.isNaN(at) ? 0 : Math.max(0, at - nowMs);
}

/** A web body as a Node stream whose every read must come within `readTimeoutMs`. */
function timedBody(body: WebReadableStream<Uint8Array>, readTimeoutMs: number, abort: AbortController): Readable {
  const reader = body.getReader();
  return new Readable({
    async read() {
      const timer = setTimeout(() => abort.abort(new SyncHttpError(`réponse interrompue : aucune donnée reçue pendant ${Math.round(readTimeoutMs / 1000)} s`, null)), readTimeoutMs);
      try {
        const { done, value } = await reader.read();
        this.push(done ? null : Buffer.from(value));
      } catch (err) {
        this.destroy(abort.signal.reason instanceof Error ? abort.signal.reason : (err as Error));
      } finally {
        clearTimeout(timer);
      }
    },
    destroy(err, callback) {
      reader.cancel().catch(() => undefined);
      callback(err);
    },
  });
}

/** Reads a whole stream, at most `maxBytes`. */
async function readAll(stream: Readable, maxBytes: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) {
      stream.destroy();
      throw new SyncHttpError(`réponse de plus de ${Math.round(maxBytes / 1024 / 1024)} Mo pour une page`, null);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** A network error, a stalled or cut body: worth another try. */
function isTransient(err: unknown): boolean {
  if (err instanceof SyncHttpError) return err.status === null || err.status >= 500;
  return err instanceof Error;
}

/** The host of a URL, for messages (never its query, which may carry a key). */
function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return 'adresse illisible';
  }
}

export class SyncHttp {
  private readonly timing: HttpTiming;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly now: () => number;
  /** When the last requests of the budget were sent, oldest first (at most `budget.requests`). */
  private sent: number[] = [];
  /** Not before this instant (a spent rate limit). */
  private notBefore = 0;
  /** Requests sent, tries included (the summaries). */
  requests = 0;

  constructor(private readonly deps: SyncHttpDeps = {}) {
    this.timing = { ...DEFAULT_HTTP_TIMING, ...deps.timing };
    this.sleep = deps.sleep ?? defaultSleep;
    this.now = deps.now ?? Date.now;
  }

  /** Waits for the budget's next request and for a spent rate limit's reset. */
  private async admit(): Promise<void> {
    const budget = this.deps.budget;
    if (budget) {
      // A sliding window: never more than `requests` within any `perMs` (a publisher counting
      // the last minute refuses a burst across two fixed windows).
      const oldest = this.sent.length >= budget.requests ? (this.sent[this.sent.length - budget.requests] as number) : null;
      const wait = oldest === null ? 0 : oldest + budget.perMs - this.now();
      if (wait > 0) await this.sleep(wait);
      this.sent.push(this.now());
      if (this.sent.length > budget.requests) this.sent.splice(0, this.sent.length - budget.requests);
    }
    const wait = this.notBefore - this.now();
    if (wait > 0) await this.wait(wait, null);
  }

  /** A publisher's pause: waited when short enough, else the run stops and says when to come back. */
  private async wait(ms: number, status: number | null): Promise<void> {
    if (ms > this.timing.maxWaitMs) {
      const at = new Date(this.now() + ms);
      throw new SyncHttpError(`quota du producteur épuisé : reprise après ${at.toISOString()}`, status, at);
    }
    await this.sleep(ms);
  }

  /** One request, retried on transient faults; `consume` reads the body within the same try. */
  private async request<T>(url: string, options: RequestOptions, consume: (answer: StreamAnswer) => Promise<T>): Promise<T> {
    let lastError: unknown = null;
    let throttles = 0;
    for (let attempt = 1; attempt <= this.timing.attempts; attempt++) {
      if (attempt > 1 && !(lastError instanceof SyncHttpError && lastError.status === 429)) await this.sleep(this.timing.backoffMs * 2 ** (attempt - 2));
      await this.deps.beforeRequest?.();
      await this.admit();
      this.requests += 1;
      const abort = new AbortController();
      const headersTimer = setTimeout(
        () => abort.abort(new SyncHttpError(`pas de réponse de ${hostOf(url)} en ${Math.round(this.timing.headersTimeoutMs / 1000)} s`, null)),
        this.timing.headersTimeoutMs,
      );
      try {
        let response: Response;
        try {
          response = await fetch(url, {
            method: options.method ?? 'GET',
            body: options.body,
            headers: { 'user-agent': SYNC_USER_AGENT, accept: 'application/json, text/csv, */*', 'accept-encoding': 'gzip', ...options.headers },
            signal: abort.signal,
            redirect: 'follow',
          });
        } catch (err) {
          throw abort.signal.reason instanceof SyncHttpError ? abort.signal.reason : new SyncHttpError(`${hostOf(url)} injoignable (${(err as Error).message})`, null);
        } finally {
          clearTimeout(headersTimer);
        }
        const limitWait = rateLimitWaitMs(response.headers, this.now());
        if (limitWait > 0) this.notBefore = this.now() + limitWait;
        if (response.status === 429 || (response.status === 503 && response.headers.has('retry-after'))) {
          await response.body?.cancel().catch(() => undefined);
          const after = retryAfterMs(response.headers.get('retry-after'), this.now()) ?? Math.max(limitWait, this.timing.backoffMs);
          lastError = new SyncHttpError(`${hostOf(url)} : trop de requêtes (HTTP ${response.status})`, 429);
          throttles += 1;
          if (throttles > this.timing.maxThrottles) throw new SyncHttpError(`${hostOf(url)} refuse encore après ${this.timing.maxThrottles} attentes (HTTP ${response.status}) : reprise au prochain passage`, response.status);
          await this.wait(after, response.status);
          // A pause asked by the publisher is not a failed try.
          attempt -= 1;
          continue;
        }
        const accepted = options.accept?.includes(response.status) ?? false;
        if (!response.ok && !accepted) {
          await response.body?.cancel().catch(() => undefined);
          throw new SyncHttpError(`${hostOf(url)} a répondu HTTP ${response.status}`, response.status);
        }
        const stream = response.body ? timedBody(response.body as WebReadableStream<Uint8Array>, this.timing.readTimeoutMs, abort) : null;
        return await consume({ status: response.status, headers: response.headers, stream });
      } catch (err) {
        lastError = err;
        if (!isTransient(err) || (err instanceof SyncHttpError && err.retryAt)) throw err;
      }
    }
    const reason = lastError instanceof Error ? lastError.message : 'échec';
    throw new SyncHttpError(`${reason} (${this.timing.attempts} essais)`, lastError instanceof SyncHttpError ? lastError.status : null);
  }

  /** A JSON answer read whole (a page of records), retried when its body is cut short or unreadable. */
  async getJson<T>(url: string, options: GetOptions = {}): Promise<JsonAnswer<T>> {
    return this.json<T>(url, options);
  }

  /**
   * A JSON body sent by POST (a sign-in), its JSON answer read whole. Retried as a GET is (on
   * 5xx, network errors, bodies cut short): only for requests that change nothing on the publisher.
   */
  async postJson<T>(url: string, body: unknown, options: GetOptions = {}): Promise<JsonAnswer<T>> {
    return this.json<T>(url, { ...options, method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json', ...options.headers } });
  }

  private async json<T>(url: string, options: RequestOptions): Promise<JsonAnswer<T>> {
    return this.request(url, options, async ({ status, headers, stream }) => {
      const bytes = stream ? await readAll(stream, this.deps.maxJsonBytes ?? 64 * 1024 * 1024) : Buffer.alloc(0);
      if (!bytes.length) return { status, headers, body: null };
      try {
        return { status, headers, body: JSON.parse(bytes.toString('utf8')) as T };
      } catch {
        // A body cut short parses as no JSON: another try.
        throw new SyncHttpError(`réponse JSON illisible ou tronquée de ${hostOf(url)} (${bytes.length} octets)`, null);
      }
    });
  }

  /**
   * A streamed answer (a file, an export): the caller reads it, bounded in memory. Only the
   * request itself is retried here; a body that fails while read fails the caller's reading,
   * which resumes from its own cursor.
   */
  async getStream(url: string, options: GetOptions = {}): Promise<StreamAnswer> {
    return this.request(url, options, async (answer) => answer);
  }
}
