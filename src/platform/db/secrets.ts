// The service's own secrets (cookie keys, CSRF key, signing key), made once and kept in
// the database so every process and every restart shares them.
import type { Database } from './database.js';

export async function secret(db: Database, name: string, make: () => string): Promise<string> {
  const found = await db('service_secrets').where({ name }).first('value');
  if (found) return found.value as string;
  await db('service_secrets').insert({ name, value: make() }).onConflict('name').ignore();
  const row = await db('service_secrets').where({ name }).first('value');
  return row.value as string;
}
