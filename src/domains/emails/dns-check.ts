// Checks the DNS records an organisation published for its sending domain. Every lookup is
// bounded (the resolver's own timeout, and an overall one), and tests inject the resolver:
// they cannot reach real DNS.
import { Resolver } from 'node:dns/promises';

export interface DnsResolver {
  resolveTxt: (name: string) => Promise<string[][]>;
  resolveCname: (name: string) => Promise<string[]>;
}

export type RecordState = 'non_verifie' | 'conforme' | 'absent' | 'different' | 'erreur_dns';

const LOOKUP_TIMEOUT_MS = 5000;

/** The system's resolver, each query bounded: 2 s per try, 2 tries. */
export function systemResolver(): DnsResolver {
  const resolver = new Resolver({ timeout: 2000, tries: 2 });
  return { resolveTxt: (name) => resolver.resolveTxt(name), resolveCname: (name) => resolver.resolveCname(name) };
}

class LookupTimeout extends Error {}

async function bounded<T>(lookup: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([lookup, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new LookupTimeout()), LOOKUP_TIMEOUT_MS)))]);
  } finally {
    clearTimeout(timer);
  }
}

/** "No such record" answers, as opposed to a failure of the lookup itself. */
const ABSENT_CODES = new Set(['ENODATA', 'ENOTFOUND', 'NXDOMAIN', 'ENONAME']);

function failure(err: unknown): RecordState {
  const code = (err as { code?: string }).code;
  return code && ABSENT_CODES.has(code) ? 'absent' : 'erreur_dns';
}

const compact = (s: string) => s.replace(/\s+/g, '').toLowerCase();

/** A TXT record holding `expected` (whitespace ignored, the record's chunks joined); `prefix` says which TXT records count. */
export async function checkTxt(resolver: DnsResolver, name: string, prefix: string, expected: string): Promise<RecordState> {
  try {
    const records = (await bounded(resolver.resolveTxt(name))).map((chunks) => compact(chunks.join('')));
    const relevant = records.filter((r) => r.startsWith(compact(prefix)));
    if (!relevant.length) return 'absent';
    return relevant.some((r) => r.includes(compact(expected))) ? 'conforme' : 'different';
  } catch (err) {
    return failure(err);
  }
}

export async function checkCname(resolver: DnsResolver, name: string, target: string): Promise<RecordState> {
  try {
    const found = (await bounded(resolver.resolveCname(name))).map((t) => t.toLowerCase().replace(/\.$/, ''));
    if (!found.length) return 'absent';
    return found.includes(target.toLowerCase()) ? 'conforme' : 'different';
  } catch (err) {
    return failure(err);
  }
}
