// Consultation files read as buyers publish them: the kinds of piece grow beyond ten
// characters (`questions_reponses`, `cadre_reponse`), and the text of files imported before
// the import masked the buyers' contact details is masked now, in the pages kept and in the
// search index (the pieces themselves, the buyer's bytes, are not touched).
import type { Knex } from 'knex';
import { DCE_SEARCH } from '../domains/dce/search-index.js';
import { holdsContactDetail, maskContactDetails } from '../import/contact-details.js';
import { upsertSearchDocuments } from '../platform/search/full-text.js';

const BATCH = 500;
const NEW_KINDS = ['dqe', 'dc1', 'dc2', 'dume', 'questions_reponses', 'cadre_reponse'];

export async function up(knex: Knex): Promise<void> {
  // SQLite does not enforce a text column's length; PostgreSQL does.
  if (knex.client.config.client === 'pg') await knex.schema.alterTable('dce_pieces', (t) => t.string('doc_type', 30).notNullable().alter());
  let after = '';
  for (;;) {
    const pages = (await knex('dce_pages as p')
      .join('dce_pieces as c', (j) => j.on('c.dce_id', 'p.dce_id').andOn('c.position', 'p.position'))
      .where('p.search_key', '>', after)
      .orderBy('p.search_key')
      .limit(BATCH)
      .select('p.search_key', 'p.text', 'c.filename')) as { search_key: string; text: string; filename: string }[];
    if (!pages.length) return;
    after = pages[pages.length - 1]?.search_key as string;
    const changed = pages.filter((p) => holdsContactDetail(p.text)).map((p) => ({ ...p, text: maskContactDetails(p.text).text }));
    for (const p of changed) await knex('dce_pages').where('search_key', p.search_key).update({ text: p.text });
    await upsertSearchDocuments(knex, DCE_SEARCH, changed.map((p) => ({ key: p.search_key, fields: { texte: p.text, piece: p.filename.replace(/[_.\-/]+/g, ' ') } })));
  }
}

export async function down(knex: Knex): Promise<void> {
  // The masked details are gone for good; the new kinds become `autre` to fit the old column.
  await knex('dce_pieces').whereIn('doc_type', NEW_KINDS).update({ doc_type: 'autre' });
  if (knex.client.config.client === 'pg') await knex.schema.alterTable('dce_pieces', (t) => t.string('doc_type', 10).notNullable().alter());
}
