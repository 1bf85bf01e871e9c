// Shared fixture of the bearer tests: oidc-provider's AccessToken.find reduced to what the
// authenticator reads, over the real token storage, and accounts each with a token.
import type { AuthServer } from '../../src/auth/provider.js';
import { createAccount } from '../../src/auth/store/accounts.js';
import { oauthAdapterFactory } from '../../src/auth/store/oauth-store.js';
import type { Database } from '../../src/platform/db/database.js';

export const TOKEN_RESOURCE = 'http://127.0.0.1:1/api/mcp';

export interface TokenFixture {
  /** The authorisation server as the authenticator sees it; `onFind` counts its reads. */
  auth: AuthServer;
  /** A fresh account alone in its organisation, and a token of it (scope mcp:read) valid one hour from `clock()`. */
  accountWithToken: () => Promise<{ userId: string; organisation: string; token: string; grantId: string }>;
}

/** `db` and `clock` are read at each use (the tests open the database in `before` and move the clock). */
export function tokenFixture(options: { label: string; db: () => Database; clock: () => number; onFind?: () => void }): TokenFixture {
  let n = 0;
  let adapter: InstanceType<ReturnType<typeof oauthAdapterFactory>> | null = null;
  const storage = () => (adapter ??= new (oauthAdapterFactory(options.db()))('AccessToken'));
  const auth = {
    issuer: 'http://127.0.0.1:1',
    resource: TOKEN_RESOURCE,
    provider: {
      AccessToken: {
        find: async (value: string) => {
          options.onFind?.();
          const payload = await storage().find(value);
          if (!payload) return undefined;
          return { ...payload, isExpired: (payload.exp as number) <= options.clock() / 1000 };
        },
      },
    },
  } as unknown as AuthServer;
  const accountWithToken = async () => {
    n += 1;
    const { label } = options;
    const organisation = `Org ${label} ${n}`;
    const account = await createAccount(options.db(), { email: `${label}${n}@exemple.fr`, passwordHash: 'x', organisation, plan: 'free' }, new Date(options.clock()));
    const token = `jeton-${label}-${n}-${'x'.repeat(30)}`;
    const grantId = `grant-${label}-${n}`;
    const iat = Math.floor(options.clock() / 1000);
    await storage().upsert(token, { kind: 'AccessToken', jti: token, accountId: account.userId, aud: TOKEN_RESOURCE, scope: 'mcp:read', clientId: 'client', grantId, iat, exp: iat + 3600 }, 3600);
    return { userId: account.userId, organisation, token, grantId };
  };
  return { auth, accountWithToken };
}
