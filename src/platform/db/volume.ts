// How much a table holds and when its newest record entered the service: what the service
// says of each source's data (referentiel_sources, the alerts' warnings).
import type { Knex } from 'knex';

export interface TableVolume {
  records: number;
  /** The newest `ingested_at` (ISO 8601, UTC), null when the table is empty. */
  lastIngestedAt: string | null;
}

/** The rows of `table` (those `where` keeps) and their newest `ingested_at`. */
export async function tableVolume(db: Knex, table: string, where?: (query: Knex.QueryBuilder) => void): Promise<TableVolume> {
  const query = db(table).count<{ n: number | string }[]>('* as n').max('ingested_at as last');
  where?.(query);
  const [row] = (await query) as unknown as { n: number | string; last: string | null }[];
  return { records: Number(row?.n ?? 0), lastIngestedAt: row?.last ?? null };
}
