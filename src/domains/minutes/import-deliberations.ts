// Council minutes in our JSON-lines format (contract: components/schemas/DeliberationLine):
// each line validated against the format, the source document's web address dropped, the
// contact details in the texts masked, all counted.
import type { Readable } from 'node:stream';
import { importFormat } from '../../contract/formats.js';
import { withoutContactDetails, contactNotes } from '../../import/contact-details.js';
import { departementOfCommune } from '../../import/fields.js';
import type { Importer, Mapped } from '../../import/importer.js';
import { jsonLineRecords, type RawRecord } from '../../import/records.js';
import { formatValidator } from '../../import/line-schema.js';
import { upsertRows } from '../../import/upsert.js';
import type { DeliberationRow } from './rows.js';
import { reindexDeliberations } from './search-index.js';
import type { components } from '../../../generated/openapi-types.js';

type Line = components['schemas']['DeliberationLine'];

const FORMAT = importFormat('DeliberationLine') as { properties: Record<string, unknown> };
const validate = formatValidator(FORMAT);
/** The web address of the source document: a public record's web address is never kept. */
const CONTACT_KEYS = new Set(['url', 'lien', 'url_document']);
const KEYS = {
  contactKeys: CONTACT_KEYS,
  knownKeys: new Set(Object.keys(FORMAT.properties)),
  textKeys: new Set(['titre', 'texte', 'source', 'numero', 'commune_nom']),
};

export const deliberations: Importer<unknown, DeliberationRow> = {
  name: 'deliberations',
  input: { unit: 'ligne', layouts: 'un objet JSON par ligne (JSON Lines) conforme au schéma DeliberationLine du contrat (openapi.json)' },
  read: (stream: Readable) => jsonLineRecords(stream) as AsyncIterable<RawRecord<unknown>>,
  map(raw, now): Mapped<DeliberationRow> {
    if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return { skip: 'la ligne doit être un objet JSON' };
    const { record, dropped } = withoutContactDetails(raw as Record<string, unknown>, KEYS);
    const fault = validate(record);
    if (fault) return { skip: fault };
    const r = record as Line;
    return {
      row: {
        id: r.id,
        commune: r.commune,
        commune_nom: r.commune_nom.trim(),
        departement: departementOfCommune(r.commune),
        date_seance: r.date_seance,
        numero: r.numero?.trim() || null,
        titre: r.titre.trim(),
        texte: r.texte,
        source: r.source?.trim() || null,
        ingested_at: now,
        updated_at: now,
      },
      ...(dropped ? { notes: contactNotes(dropped) } : {}),
    };
  },
  async write(trx, rows) {
    const { applied, ...counts } = await upsertRows(trx, 'deliberations', 'id', rows, { keepOnUpdate: ['ingested_at'] });
    await reindexDeliberations(trx, applied);
    return counts;
  },
  sortKey: (row) => row.id,
};
