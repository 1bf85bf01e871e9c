// What a client may register and use beyond oidc-provider's own checks: redirect URIs in
// https, or in http on the loopback only (MCP authorization spec), refused at registration
// and again at use (clients registered before the rule); client secrets compared with the
// hash storage keeps of them (store/client-secret.ts).
import type Provider from 'oidc-provider';
import './oidc-runtime-notice.js';
import { errors, type Configuration } from 'oidc-provider';
import { clientSecretMatches } from './store/client-secret.js';

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);

export function redirectUriConforms(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  const url = URL.parse(value);
  if (!url) return false;
  return url.protocol === 'https:' || (url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname));
}

const RULE = 'seules les adresses https, ou http sur la boucle locale (127.0.0.1, [::1], localhost), sont acceptées';

/**
 * oidc-provider's hook for client metadata (`extraClientMetadata`): run on the listed
 * properties at registration (`ctx` set), not when a stored client is read back.
 */
export const clientMetadataRules: NonNullable<Configuration['extraClientMetadata']> = {
  properties: ['redirect_uris', 'post_logout_redirect_uris'],
  validator(ctx, key, value) {
    if (!ctx || !Array.isArray(value)) return; // a malformed list is the schema's own refusal
    if (value.every(redirectUriConforms)) return;
    if (key === 'redirect_uris') {
      // RFC 7591 §3.2.2
      const err = new errors.InvalidRedirectUri();
      err.error_description = `Adresse de redirection refusée : ${RULE}.`;
      throw err;
    }
    throw new errors.InvalidClientMetadata(`Adresse de retour après déconnexion refusée : ${RULE}.`);
  },
};

/** Overrides of oidc-provider's Client: the supported way to compare a secret it does not hold (`compareClientSecret` may be async). */
export function applyClientRules(provider: Provider): void {
  // oidc-provider decides whether to issue a secret before applying the client defaults: a
  // registration without `token_endpoint_auth_method` became a public client (`none`) that
  // also received a secret the token endpoint then refuses. The default is applied first.
  const Client = provider.Client as unknown as { needsSecret: (metadata: Record<string, unknown>) => boolean };
  const needsSecret = Client.needsSecret.bind(Client);
  Client.needsSecret = (metadata) => needsSecret({ ...metadata, token_endpoint_auth_method: metadata.token_endpoint_auth_method ?? 'none' });
  const prototype = provider.Client.prototype;
  prototype.compareClientSecret = function compareClientSecret(this: { clientSecret?: unknown }, actual: string) {
    return clientSecretMatches(this.clientSecret, actual);
  };
  const redirectUriAllowed = prototype.redirectUriAllowed;
  prototype.redirectUriAllowed = function allowed(value: string) {
    return redirectUriConforms(value) && redirectUriAllowed.call(this, value);
  };
  const postLogoutRedirectUriAllowed = prototype.postLogoutRedirectUriAllowed;
  prototype.postLogoutRedirectUriAllowed = function allowed(value: string) {
    return redirectUriConforms(value) && postLogoutRedirectUriAllowed.call(this, value);
  };
}
