// The 2026-07-28 revision of MCP beside the 2025 ones, on the same addresses: which revision
// a message speaks, and the checks that revision adds before a request is answered (the
// protocol version and client capabilities in `_meta`, the MCP-Protocol-Version, Mcp-Method
// and Mcp-Name headers mirroring the body). Refusals carry the revision's codes and HTTP
// statuses with French messages, as every other envelope refusal.
import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
import { echoed } from '../contract/text-rules.js';

/** The revision without initialize: every request carries its version and the client's capabilities. */
export const MODERN_REVISION = '2026-07-28';
/** The 2025 revisions (and earlier) the SDK serves with initialize. */
export const LEGACY_REVISIONS: readonly string[] = SUPPORTED_PROTOCOL_VERSIONS;
/** Every revision served, newest first (server/discover, UnsupportedProtocolVersionError). */
export const SUPPORTED_REVISIONS: readonly string[] = [MODERN_REVISION, ...LEGACY_REVISIONS];

export const META_PROTOCOL_VERSION = 'io.modelcontextprotocol/protocolVersion';
export const META_CLIENT_CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities';
export const META_SERVER_INFO = 'io.modelcontextprotocol/serverInfo';

/** The revision's codes (schema 2026-07-28): headers not mirroring the body, a version not served. */
export const HEADER_MISMATCH = -32020;
export const UNSUPPORTED_PROTOCOL_VERSION = -32022;

/** Methods of the 2026-07-28 revision this server answers (no initialize, ping or subscriptions: nothing changes between deployments). */
export const MODERN_METHODS: ReadonlySet<string> = new Set(['server/discover', 'tools/list', 'tools/call', 'resources/list', 'resources/templates/list', 'resources/read']);

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * Whether a message speaks the 2026-07-28 revision: its MCP-Protocol-Version header says
 * so, or (without a 2025 header) it carries a protocol version in `_meta` or is a
 * server/discover. Anything else is served as the 2025 revisions, exactly as before, so a
 * client that initializes never meets the new checks.
 */
export function speaksModernRevision(body: unknown, versionHeader: string | undefined): boolean {
  if (versionHeader === MODERN_REVISION) return true;
  if (versionHeader !== undefined && LEGACY_REVISIONS.includes(versionHeader)) return false;
  if (!isObject(body)) return false;
  if (body.method === 'server/discover') return true;
  const params = body.params;
  return isObject(params) && isObject(params._meta) && META_PROTOCOL_VERSION in params._meta;
}

export interface RevisionRefusal {
  status: number;
  code: number;
  message: string;
  data?: unknown;
}

/** The name a request names in Mcp-Name: the tool of tools/call, the URI of resources/read. */
function nameOf(method: string, params: Record<string, unknown>): string | undefined {
  if (method === 'tools/call') return typeof params.name === 'string' ? params.name : undefined;
  if (method === 'resources/read') return typeof params.uri === 'string' ? params.uri : undefined;
  return undefined;
}

/** A header value as sent: surrounding spaces are not part of it (RFC 9110 §5.5), the Base64 sentinel decoded. */
function headerValue(raw: string): string {
  const value = raw.trim();
  const sentinel = /^=\?base64\?([A-Za-z0-9+/=]*)\?=$/.exec(value);
  return sentinel ? Buffer.from(sentinel[1] as string, 'base64').toString('utf8') : value;
}

const mismatch = (message: string): RevisionRefusal => ({ status: 400, code: HEADER_MISMATCH, message });

/**
 * The checks of a 2026-07-28 request, in the revision's order: its `_meta` (-32602), its
 * headers against its body (-32020, HeaderMismatch), then its version (-32022, with the
 * versions served). All are 400 Bad Request.
 */
export function modernRequestProblem(method: string, params: Record<string, unknown>, header: (name: string) => string | undefined): RevisionRefusal | null {
  const meta = params._meta;
  if (!isObject(meta))
    return { status: 400, code: -32602, message: `Paramètres invalides : « params._meta » manque ; en révision ${MODERN_REVISION}, chaque requête porte sa version du protocole et les capacités du client.` };
  const version = meta[META_PROTOCOL_VERSION];
  if (typeof version !== 'string' || !version) return { status: 400, code: -32602, message: `Paramètres invalides : « params._meta["${META_PROTOCOL_VERSION}"] » manque.` };
  if (!isObject(meta[META_CLIENT_CAPABILITIES]))
    return { status: 400, code: -32602, message: `Paramètres invalides : « params._meta["${META_CLIENT_CAPABILITIES}"] » doit être un objet (vide si le client n’en déclare aucune).` };

  const versionHeader = header('mcp-protocol-version');
  if (versionHeader === undefined) return mismatch('En-tête MCP-Protocol-Version manquant : il doit reprendre la version du protocole de « params._meta ».');
  if (versionHeader.trim() !== version)
    return mismatch(`En-tête MCP-Protocol-Version (« ${echoed(versionHeader)} ») différent de la version de « params._meta » (« ${echoed(version)} »).`);
  const methodHeader = header('mcp-method');
  if (methodHeader === undefined) return mismatch('En-tête Mcp-Method manquant : il doit reprendre la méthode JSON-RPC du corps.');
  if (methodHeader.trim() !== method) return mismatch(`En-tête Mcp-Method (« ${echoed(methodHeader)} ») différent de la méthode du corps (« ${echoed(method)} »).`);
  const name = nameOf(method, params);
  if (name !== undefined) {
    const nameHeader = header('mcp-name');
    const what = method === 'tools/call' ? 'le nom de l’outil' : 'l’URI de la ressource';
    if (nameHeader === undefined) return mismatch(`En-tête Mcp-Name manquant : il doit reprendre ${what}.`);
    if (headerValue(nameHeader) !== name) return mismatch(`En-tête Mcp-Name (« ${echoed(nameHeader)} ») différent de ${what} (« ${echoed(name)} »).`);
  }

  if (version !== MODERN_REVISION) {
    return {
      status: 400,
      code: UNSUPPORTED_PROTOCOL_VERSION,
      message: `Version du protocole MCP non prise en charge : « ${echoed(version)} ». Versions acceptées : ${SUPPORTED_REVISIONS.join(', ')} (celles de 2025 et avant commencent par initialize).`,
      data: { supported: SUPPORTED_REVISIONS, requested: version },
    };
  }
  return null;
}

/**
 * How long a list or card may be reused, and by whom (CacheableResult). The lists change
 * only with a deployment; tools/list depends on the token's scopes, so it is private to
 * the authorization context, while the cards and the discovery answer are the same for all.
 */
export const CACHE_TTL_MS = 3_600_000;
export type CacheScope = 'public' | 'private';
