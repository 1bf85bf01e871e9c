// Client ID Metadata Documents (MCP 2025-11-25 and 2026-07-28; draft-ietf-oauth-client-id-
// metadata-document): a client whose `client_id` is an https URL is described by the JSON
// document served there. oidc-provider's implementation fetches it (2.5 s timeout, 5 KiB at
// most, no redirect followed, `client_id` in the document equal to the URL, no shared-secret
// authentication, cached per Cache-Control between 30 s and a day) through a dispatcher that
// cuts connections to private, loopback and other special-use addresses. This module adds
// what the service decides: a URL naming a private or loopback host is refused before any
// fetch, and tests alone may trust a local HTTPS server (a test certificate and the loopback,
// given in the configuration object, never read from the environment).
import { isIP } from 'node:net';
import type { Configuration } from 'oidc-provider';

/** For tests only: the certificate (PEM) of a local HTTPS server serving documents on the loopback. */
export interface ClientMetadataTestTrust {
  ca: string;
}

const PRIVATE_V4 = [/^10\./, /^127\./, /^169\.254\./, /^172\.(1[6-9]|2\d|3[01])\./, /^192\.168\./, /^100\.(6[4-9]|[7-9]\d|1[01]\d|12[0-7])\./, /^0\./];

/** A host that names the machine or a private network by itself (the dispatcher also checks where a name resolves). */
export function isPrivateHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost') || host.endsWith('.local') || host.endsWith('.internal')) return true;
  if (isIP(host) === 4) return PRIVATE_V4.some((r) => r.test(host));
  if (isIP(host) === 6) return host === '::1' || host === '::' || /^f[cd]/.test(host) || /^fe[89ab]/.test(host) || host.startsWith('::ffff:');
  return false;
}

/** The undici Agent class behind Node's fetch (as oidc-provider finds it), to give a test its own trust. */
function fetchAgentClass(): (new (options: { connect: { ca: string } }) => object) | null {
  void Response; // loads Node's fetch, which sets its global dispatcher
  const g = globalThis as unknown as Record<symbol, { constructor: new (options: { connect: { ca: string } }) => object } | undefined>;
  return (g[Symbol.for('undici.globalDispatcher.1')] ?? g[Symbol.for('undici.globalDispatcher.2')])?.constructor ?? null;
}

/** The feature's settings and oidc-provider's `fetch`, for createAuthServer. */
export function clientMetadataDocuments(testTrust: ClientMetadataTestTrust | undefined): {
  feature: NonNullable<NonNullable<Configuration['features']>['clientIdMetadataDocument']>;
  fetch: NonNullable<Configuration['fetch']>;
} {
  const Agent = testTrust ? fetchAgentClass() : null;
  const testDispatcher = Agent && testTrust ? new Agent({ connect: { ca: testTrust.ca } }) : null;
  return {
    feature: {
      enabled: true,
      ack: 'draft-02',
      allowFetch: async (_ctx, clientId) => {
        const url = URL.parse(clientId);
        if (!url) return false;
        return testDispatcher !== null || !isPrivateHost(url.hostname);
      },
      cacheDuration: { min: 30, max: 86_400 },
    },
    fetch: (url, options) => globalThis.fetch(url, testDispatcher ? ({ ...options, dispatcher: testDispatcher } as RequestInit) : options),
  };
}
