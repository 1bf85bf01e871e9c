// The protected resources (RFC 8707, RFC 9728): the canonical one, `{base_url}/api/mcp` (the
// spec's), whose tokens work on every MCP address and on REST; and each restricted MCP
// address as a resource of its own, whose tokens work on that address only. Each has its
// metadata (path form); the 401 challenge of an address points to its own.
import type { ProfileName } from '../contract/types.js';
import { PROFILE_NAMES } from '../contract/types.js';

/** Where a call came in: REST, or one of the three MCP addresses. */
export type Address = 'rest' | ProfileName;

const WELL_KNOWN = '/.well-known/oauth-protected-resource';

export function addressPath(profile: ProfileName): string {
  return profile === 'full' ? '/api/mcp' : `/api/mcp/${profile}`;
}

export function canonicalResource(publicUrl: string): string {
  return `${publicUrl}${addressPath('full')}`;
}

/** The resource a token must name to be used at this address (or the canonical one). */
export function resourceOf(publicUrl: string, address: Address): string {
  return `${publicUrl}${addressPath(address === 'rest' ? 'full' : address)}`;
}

/** Every resource a client may ask a token for: the canonical one first. */
export function allResources(publicUrl: string): string[] {
  return PROFILE_NAMES.map((p) => `${publicUrl}${addressPath(p)}`);
}

/** Whether a token issued for these audiences may be used at this address. */
export function audienceAllows(audience: readonly unknown[], publicUrl: string, address: Address): boolean {
  return audience.includes(canonicalResource(publicUrl)) || audience.includes(resourceOf(publicUrl, address));
}

/** The metadata of an address: the root document for REST and `/api/mcp` (the spec's), the path form for the others. */
export function metadataUrlOf(publicUrl: string, address: Address): string {
  return address === 'rest' || address === 'full' ? `${publicUrl}${WELL_KNOWN}` : `${publicUrl}${WELL_KNOWN}${addressPath(address)}`;
}

/** Path-form metadata address of each resource, for the routes: `/.well-known/oauth-protected-resource/api/mcp…`. */
export function metadataRoutes(): { path: string; address: Address }[] {
  return [{ path: WELL_KNOWN, address: 'full' as Address }, ...PROFILE_NAMES.map((p) => ({ path: `${WELL_KNOWN}${addressPath(p)}`, address: p as Address }))];
}

/**
 * The scopes to ask for at an address (the challenge's `scope`): the connectors address
 * serves reads only; the others read and write (the legacy `mcp:public` is granted to a
 * client that asks none, and is not advertised).
 */
export function challengeScopes(address: Address): string {
  return address === 'connectors' ? 'mcp:read' : 'mcp:read mcp:write';
}
