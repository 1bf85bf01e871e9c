// OAuth hardening (issue 12): confidential clients' secrets stored as hashes (the rows
// written before are hashed in place), and the DPoP proofs the resource side has accepted,
// kept until they expire so a replay is refused by every process.
import type { Knex } from 'knex';
import { hashClientSecret, isHashedClientSecret } from '../auth/store/client-secret.js';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('oauth_dpop_proofs', (t) => {
    // SHA-256 of the key thumbprint and the proof's jti.
    t.string('id_hash', 64).primary();
    t.bigInteger('expires_at').notNullable();
    t.index(['expires_at']);
  });
  const clients = (await knex('oauth_store').where({ model: 'Client' }).select('id_hash', 'payload')) as { id_hash: string; payload: string }[];
  for (const row of clients) {
    const payload = JSON.parse(row.payload) as Record<string, unknown>;
    if (typeof payload.client_secret !== 'string' || isHashedClientSecret(payload.client_secret)) continue;
    payload.client_secret = hashClientSecret(payload.client_secret);
    await knex('oauth_store').where({ model: 'Client', id_hash: row.id_hash }).update({ payload: JSON.stringify(payload) });
  }
}

export async function down(knex: Knex): Promise<void> {
  // The clear secrets are gone for good: only the proofs' table is undone.
  await knex.schema.dropTableIfExists('oauth_dpop_proofs');
}
