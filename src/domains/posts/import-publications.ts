// Social-network posts in our JSON-lines format (contract: components/schemas/PublicationLine):
// each line validated against the format, the post's link dropped (the record's `url` is the
// service's permalink), the contact details in the texts masked, all counted.
import type { Readable } from 'node:stream';
import { importFormat } from '../../contract/formats.js';
import { withoutContactDetails, contactNotes } from '../../import/contact-details.js';
import { departementOfCommune, isoDate } from '../../import/fields.js';
import type { Importer, Mapped } from '../../import/importer.js';
import { jsonLineRecords, type RawRecord } from '../../import/records.js';
import { formatValidator } from '../../import/line-schema.js';
import { upsertRows } from '../../import/upsert.js';
import type { PublicationRow } from './rows.js';
import { reindexPublications } from './search-index.js';
import type { components } from '../../../generated/openapi-types.js';

type Line = components['schemas']['PublicationLine'];

const FORMAT = importFormat('PublicationLine') as { properties: Record<string, unknown> };
const validate = formatValidator(FORMAT);
const KEYS = {
  contactKeys: new Set(['lien', 'url']),
  knownKeys: new Set(Object.keys(FORMAT.properties)),
  textKeys: new Set(['texte', 'auteur', 'commune_nom']),
};

export const publications: Importer<unknown, PublicationRow> = {
  name: 'publications',
  input: { unit: 'ligne', layouts: 'un objet JSON par ligne (JSON Lines) conforme au schéma PublicationLine du contrat (openapi.json)' },
  read: (stream: Readable) => jsonLineRecords(stream) as AsyncIterable<RawRecord<unknown>>,
  map(raw, now): Mapped<PublicationRow> {
    if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return { skip: 'la ligne doit être un objet JSON' };
    const { record, dropped } = withoutContactDetails(raw as Record<string, unknown>, KEYS);
    const fault = validate(record);
    if (fault) return { skip: fault };
    const r = record as Line;
    const jour = isoDate(r.date);
    if (!jour) return { skip: `champ « date » : jour inexistant (${r.date.slice(0, 10)})` };
    const commune = r.commune ?? null;
    return {
      row: {
        id: r.id,
        reseau: r.reseau,
        auteur: r.auteur.trim(),
        date_publication: r.date,
        jour,
        texte: r.texte,
        commune,
        commune_nom: r.commune_nom?.trim() || null,
        departement: commune ? departementOfCommune(commune) : (r.departement ?? null),
        ingested_at: now,
        updated_at: now,
      },
      ...(dropped ? { notes: contactNotes(dropped) } : {}),
    };
  },
  async write(trx, rows) {
    const { applied, ...counts } = await upsertRows(trx, 'publications', 'id', rows, { keepOnUpdate: ['ingested_at'] });
    await reindexPublications(trx, applied);
    return counts;
  },
  sortKey: (row) => row.id,
};
