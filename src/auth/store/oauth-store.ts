// oidc-provider's storage adapter on Knex. Ids are stored as SHA-256 hashes (an access
// token's id is the token itself), and `jti` is stripped from the stored payload and
// given back on read, so the table never holds a usable token; a client's secret is kept
// as a hash only (client-secret.ts), so it holds no usable client credential either.
import { createHash } from 'node:crypto';
import { hashClientSecret, isHashedClientSecret } from './client-secret.js';
import { excusingWrites } from '../../platform/db/change-stamp.js';
import { kindOf, type Database } from '../../platform/db/database.js';
import { statement, withSqlite } from '../../platform/db/statements.js';

type Payload = Record<string, unknown>;

const hash = (id: string) => createHash('sha256').update(id).digest('hex');

/** Models whose id is a bearer credential: never stored in clear, not even inside the payload. */
const CREDENTIAL_MODELS = new Set([
  'AccessToken',
  'AuthorizationCode',
  'RefreshToken',
  'DeviceCode',
  'ClientCredentials',
  'BackchannelAuthenticationRequest',
  'RegistrationAccessToken',
  'InitialAccessToken',
]);
const nowSeconds = () => Math.floor(Date.now() / 1000);

export function oauthAdapterFactory(db: Database) {
  const sqlite = kindOf(db) === 'sqlite';
  return class KnexOAuthAdapter {
    constructor(readonly model: string) {}

    async upsert(id: string, payload: Payload, expiresIn?: number): Promise<void> {
      const stored = { ...payload };
      if (CREDENTIAL_MODELS.has(this.model)) delete stored.jti;
      // The registration answer carries the secret in clear once; storage gets its hash.
      if (this.model === 'Client' && typeof stored.client_secret === 'string' && !isHashedClientSecret(stored.client_secret)) {
        stored.client_secret = hashClientSecret(stored.client_secret);
      }
      const row = {
        model: this.model,
        id_hash: hash(id),
        payload: JSON.stringify(stored),
        grant_id: (payload.grantId as string | undefined) ?? null,
        uid: (payload.uid as string | undefined) ?? null,
        user_code: (payload.userCode as string | undefined) ?? null,
        account_id: (payload.accountId as string | undefined) ?? null,
        expires_at: expiresIn ? nowSeconds() + expiresIn : null,
      };
      await db('oauth_store').insert(row).onConflict(['model', 'id_hash']).merge();
    }

    private async findWhere(where: Record<string, unknown>, id?: string): Promise<Payload | undefined> {
      const row = await this.findRow(where);
      if (!row) return undefined;
      if (row.expires_at !== null && Number(row.expires_at) <= nowSeconds()) return undefined;
      const payload = JSON.parse(row.payload as string) as Payload;
      if (row.consumed_at !== null) payload.consumed = Number(row.consumed_at);
      if (id !== undefined && CREDENTIAL_MODELS.has(this.model)) payload.jti = id;
      return payload;
    }

    /** The one query of every authenticated call: a cached prepared statement on SQLite. */
    private async findRow(where: Record<string, unknown>): Promise<{ payload: string; expires_at: unknown; consumed_at: unknown } | undefined> {
      if (sqlite && 'id_hash' in where) {
        return withSqlite(db, (conn) =>
          statement(conn, 'select payload, expires_at, consumed_at from oauth_store where model = ? and id_hash = ?').get(this.model, where.id_hash) as
            | { payload: string; expires_at: unknown; consumed_at: unknown }
            | undefined,
        );
      }
      return db('oauth_store').where({ model: this.model, ...where }).first('payload', 'expires_at', 'consumed_at');
    }

    find(id: string): Promise<Payload | undefined> {
      return this.findWhere({ id_hash: hash(id) }, id);
    }

    findByUid(uid: string): Promise<Payload | undefined> {
      return this.findWhere({ uid });
    }

    findByUserCode(userCode: string): Promise<Payload | undefined> {
      return this.findWhere({ user_code: userCode });
    }

    async consume(id: string): Promise<void> {
      await db('oauth_store').where({ model: this.model, id_hash: hash(id) }).update({ consumed_at: nowSeconds() });
    }

    async destroy(id: string): Promise<void> {
      await db('oauth_store').where({ model: this.model, id_hash: hash(id) }).delete();
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      await db('oauth_store').where({ model: this.model, grant_id: grantId }).delete();
    }
  };
}

/** Deletes an authorization code, whatever its state: after a failed redemption it must not serve again. */
export async function burnAuthorizationCode(db: Database, code: string): Promise<void> {
  await db('oauth_store').where({ model: 'AuthorizationCode', id_hash: hash(code) }).delete();
}

/** Every stored object of a grant (the grant, its codes and tokens), for a disconnection. */
export async function revokeGrantEverywhere(db: Database, grantId: string): Promise<void> {
  await db.transaction(async (trx) => {
    await trx('oauth_store').where({ grant_id: grantId }).delete();
    await trx('oauth_store').where({ model: 'Grant', id_hash: hash(grantId) }).delete();
    await trx('ai_access_usage').where({ grant_id: grantId }).delete();
  });
}

export interface GrantSummary {
  grantId: string;
  clientId: string;
  clientName: string | null;
  scopes: string[];
  grantedAt: string;
  lastUsedAt: string | null;
}

/** The accesses an account granted: one per grant, with the client's name and last use. */
export async function listGrants(db: Database, accountId: string, resource: string): Promise<GrantSummary[]> {
  const grants = await db('oauth_store').where({ model: 'Grant', account_id: accountId }).select('payload', 'expires_at');
  const out: GrantSummary[] = [];
  for (const row of grants) {
    if (row.expires_at !== null && Number(row.expires_at) <= nowSeconds()) continue;
    const g = JSON.parse(row.payload as string) as { jti?: string; clientId: string; iat: number; resources?: Record<string, string> };
    const grantId = g.jti as string;
    const client = await db('oauth_store').where({ model: 'Client', id_hash: hash(g.clientId) }).first('payload');
    const clientName = client ? ((JSON.parse(client.payload as string) as { client_name?: string }).client_name ?? null) : null;
    const usage = await db('ai_access_usage').where({ grant_id: grantId }).first('last_used_at');
    out.push({
      grantId,
      clientId: g.clientId,
      clientName,
      scopes: (g.resources?.[resource] ?? '').split(' ').filter(Boolean),
      grantedAt: new Date(g.iat * 1000).toISOString(),
      lastUsedAt: usage?.last_used_at ?? null,
    });
  }
  return out.sort((a, b) => (a.grantedAt < b.grantedAt ? 1 : -1));
}

/** The last use of a grant: excused on SQLite, as it changes nothing a call caches (data/change-stamp.ts). */
export async function recordGrantUse(db: Database, grantId: string, at: Date): Promise<void> {
  if (kindOf(db) === 'sqlite') {
    await withSqlite(db, (conn) =>
      excusingWrites(conn, () =>
        statement(conn, 'insert into ai_access_usage (grant_id, last_used_at) values (?, ?) on conflict (grant_id) do update set last_used_at = excluded.last_used_at').run(
          grantId,
          at.toISOString(),
        ),
      ),
    );
    return;
  }
  await db('ai_access_usage').insert({ grant_id: grantId, last_used_at: at.toISOString() }).onConflict('grant_id').merge();
}
