// The DPoP proofs already accepted by the resource side (RFC 9449 §11.1), kept in the
// database until they would be refused as too old anyway, so that a proof replayed to
// another process of the service is refused too. One atomic statement decides.
import { createHash } from 'node:crypto';
import { excusingWrites } from '../../platform/db/change-stamp.js';
import { kindOf, type Database } from '../../platform/db/database.js';
import { statement, withSqlite } from '../../platform/db/statements.js';

/** How often a process deletes the expired proofs at most. */
const PURGE_INTERVAL_MS = 60_000;

const INSERT_SQL =
  'insert into oauth_dpop_proofs (id_hash, expires_at) values (?, ?) on conflict (id_hash) do update set expires_at = excluded.expires_at where oauth_dpop_proofs.expires_at <= ?';

export class DpopProofStore {
  private lastPurge = 0;

  constructor(private readonly db: Database) {}

  /**
   * True when the proof (its key thumbprint and `jti`) was never seen, and records it until
   * `expiresAt` (seconds); false for a replay. A row past its expiry no longer counts.
   */
  async firstUse(jkt: string, jti: string, expiresAt: number, nowSeconds: number): Promise<boolean> {
    const idHash = createHash('sha256').update(`${jkt}:${jti}`).digest('hex');
    const fresh = await this.insert(idHash, expiresAt, nowSeconds);
    if (nowSeconds * 1000 - this.lastPurge >= PURGE_INTERVAL_MS) {
      this.lastPurge = nowSeconds * 1000;
      await this.purge(nowSeconds);
    }
    return fresh;
  }

  private async insert(idHash: string, expiresAt: number, nowSeconds: number): Promise<boolean> {
    if (kindOf(this.db) === 'sqlite') {
      // Excused (data/change-stamp.ts): no cached token depends on this table, so a call's
      // own proof must not empty the token cache.
      return withSqlite(this.db, (conn) => excusingWrites(conn, () => statement(conn, INSERT_SQL).run(idHash, expiresAt, nowSeconds).changes === 1));
    }
    const result = (await this.db.raw(`${INSERT_SQL} returning id_hash`, [idHash, expiresAt, nowSeconds])) as { rows: unknown[] };
    return result.rows.length === 1;
  }

  private async purge(nowSeconds: number): Promise<void> {
    if (kindOf(this.db) === 'sqlite') {
      await withSqlite(this.db, (conn) => excusingWrites(conn, () => statement(conn, 'delete from oauth_dpop_proofs where expires_at <= ?').run(nowSeconds)));
      return;
    }
    await this.db('oauth_dpop_proofs').where('expires_at', '<=', nowSeconds).delete();
  }
}
