// On first start with an empty database, one demo account to try the service with.
import { randomBytes } from 'node:crypto';
import { hashPassword } from '../../src/platform/passwords.js';
import { countUsers, createAccount, findUserByEmail } from '../../src/auth/store/accounts.js';
import type { Database } from '../../src/platform/db/database.js';

export const DEMO_EMAIL = 'demo@exemple.fr';

/**
 * The demo account, when the database had no account at all. `hadAccounts` is counted before
 * the demo import: an account created meanwhile (account:create during the import) does not
 * take the demo account's place.
 */
export async function createDemoAccountIfEmpty(db: Database, now: Date, hadAccounts?: boolean): Promise<{ email: string; password: string } | null> {
  if (hadAccounts ?? (await countUsers(db)) > 0) return null;
  if (await findUserByEmail(db, DEMO_EMAIL)) return null;
  const password = randomBytes(9).toString('base64url');
  try {
    await createAccount(db, { email: DEMO_EMAIL, passwordHash: await hashPassword(password), organisation: 'Démo BTP', role: 'admin', plan: 'subscribed' }, now);
  } catch (err) {
    // Several processes started at once on an empty database (SERVICE_ROLES apart): one created it.
    if ((await countUsers(db)) > 0) return null;
    throw err;
  }
  return { email: DEMO_EMAIL, password };
}
