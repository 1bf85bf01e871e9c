// ADEME list of RGE-certified companies (CSV). Its contact columns (telephone, email,
// site_internet) are never read: nothing of them is stored.
import type { Readable } from 'node:stream';
import { csvRecords } from '../../import/records.js';
import type { Importer, Mapped } from '../../import/importer.js';
import type { RgeRow } from './rows.js';
import { isoDate, isSiret } from '../../import/fields.js';
import { upsertRows } from '../../import/upsert.js';

type Csv = Record<string, string>;


const text = (v: string | undefined) => (v ?? '').trim() || null;

export const rge: Importer<Csv, RgeRow> = {
  name: 'rge',
  input: { unit: 'ligne', layouts: null },
  // The ADEME export is comma-separated; some mirrors use semicolons: the header tells.
  read: (stream: Readable) => csvRecords(stream, ','),
  map(r, now): Mapped<RgeRow> {
    const siret = (r.siret ?? '').replace(/\s/g, '');
    if (!isSiret(siret)) return { skip: `SIRET absent ou invalide (${r.siret ?? ''})` };
    const domaine = text(r.domaine);
    const organisme = text(r.organisme);
    if (!domaine || !organisme) return { skip: 'domaine ou organisme absent' };
    const debut = isoDate(r.lien_date_debut);
    const fin = isoDate(r.lien_date_fin);
    if (debut === null || fin === null) return { skip: `date illisible (${r.lien_date_debut} / ${r.lien_date_fin})` };
    return {
      row: {
        siret,
        domaine,
        organisme,
        meta_domaine: text(r.meta_domaine),
        code_qualification: text(r.code_qualification),
        nom_qualification: text(r.nom_qualification),
        date_debut: debut ?? null,
        date_fin: fin ?? null,
        ingested_at: now,
        updated_at: now,
      },
    };
  },
  async write(trx, rows) {
    const { applied: _applied, ...counts } = await upsertRows(trx, 'rge_certifications', ['siret', 'domaine', 'organisme'], rows, { keepOnUpdate: ['ingested_at'] });
    return counts;
  },
};
