// Directory contacts in our JSON-lines format (contract: components/schemas/ContactLine):
// name, role and organisation. Every telephone, e-mail or web address of a line (its contact
// keys, any other key holding one, or inside a text) is dropped or masked before the line is
// validated, counted in the import's report, and never stored.
import type { Readable } from 'node:stream';
import { importFormat } from '../../contract/formats.js';
import { withoutContactDetails, contactNotes } from '../../import/contact-details.js';
import { departementOfCommune } from '../../import/fields.js';
import type { Importer, Mapped } from '../../import/importer.js';
import { jsonLineRecords, type RawRecord } from '../../import/records.js';
import { formatValidator } from '../../import/line-schema.js';
import { upsertRows } from '../../import/upsert.js';
import { foldText } from '../../platform/search/text-fold.js';
import type { ContactRow } from './rows.js';
import { reindexContacts } from './search-index.js';
import type { components } from '../../../generated/openapi-types.js';

type Line = components['schemas']['ContactLine'];

const FORMAT = importFormat('ContactLine') as { properties: Record<string, unknown> };
const validate = formatValidator(FORMAT);
/** The format's contact keys: accepted and dropped (the format documents each one). */
export const CONTACT_KEYS: ReadonlySet<string> = new Set(['telephone', 'tel', 'telephone_fixe', 'portable', 'mobile', 'fax', 'email', 'mail', 'courriel', 'site', 'site_internet', 'site_web', 'web', 'url', 'lien']);
for (const key of CONTACT_KEYS) if (!(key in FORMAT.properties)) throw new Error(`ContactLine : clé de coordonnée ${key} absente du format.`);
const KEYS = {
  contactKeys: CONTACT_KEYS,
  knownKeys: new Set(Object.keys(FORMAT.properties)),
  textKeys: new Set(['nom', 'role', 'organisation', 'commune_nom']),
};

const words = (text: string) => ` ${foldText(text)} `;

export const contacts: Importer<unknown, ContactRow> = {
  name: 'contacts',
  input: { unit: 'ligne', layouts: 'un objet JSON par ligne (JSON Lines) conforme au schéma ContactLine du contrat (openapi.json)' },
  read: (stream: Readable) => jsonLineRecords(stream) as AsyncIterable<RawRecord<unknown>>,
  map(raw, now): Mapped<ContactRow> {
    if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return { skip: 'la ligne doit être un objet JSON' };
    const { record, dropped } = withoutContactDetails(raw as Record<string, unknown>, KEYS);
    const fault = validate(record);
    if (fault) return { skip: fault };
    const r = record as Line;
    const siret = r.organisation_siret ?? null;
    const siren = r.organisation_siren ?? (siret ? siret.slice(0, 9) : null);
    if (siret && siren && !siret.startsWith(siren)) return { skip: 'champs « organisation_siren » et « organisation_siret » incompatibles' };
    const commune = r.commune ?? null;
    const organisation = r.organisation.trim();
    const role = r.role.trim();
    return {
      row: {
        id: r.id,
        nom: r.nom.trim(),
        role,
        organisation,
        organisation_siren: siren,
        organisation_siret: siret,
        commune,
        commune_nom: r.commune_nom?.trim() || null,
        departement: commune ? departementOfCommune(commune) : (r.departement ?? null),
        organisation_mots: words(organisation),
        role_mots: words(role),
        ingested_at: now,
        updated_at: now,
      },
      ...(dropped ? { notes: contactNotes(dropped) } : {}),
    };
  },
  async write(trx, rows) {
    const { applied, ...counts } = await upsertRows(trx, 'contacts', 'id', rows, { keepOnUpdate: ['ingested_at'] });
    await reindexContacts(trx, applied);
    return counts;
  },
  sortKey: (row) => row.id,
};
