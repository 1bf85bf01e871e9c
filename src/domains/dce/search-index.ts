// The consultation files' search index: one document per reading page of a piece (about
// 8,000 characters, well under the index's word limit), keyed `dce_id/position/page`.
import { defineSearchIndex } from '../../platform/search/full-text.js';

export const DCE_SEARCH = defineSearchIndex({
  name: 'dce_search',
  columns: [
    { name: 'texte', weight: 'A' },
    { name: 'piece', weight: 'B' },
  ],
});

export const pageKey = (dceId: string, position: number, page: number) => `${dceId}/${position}/${page}`;
