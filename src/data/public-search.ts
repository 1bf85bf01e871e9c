// The search indexes of the public data, and the documents the importers write into them
// in the same transaction as the records (what is imported is searchable at once).
import type { Knex } from 'knex';
import { NAF_SECTION_F } from './reference-lists.js';
import { defineSearchIndex, upsertSearchDocuments } from './search/full-text.js';

export const COMPANIES_SEARCH = defineSearchIndex({
  name: 'companies_search',
  columns: [
    { name: 'nom', weight: 'A' },
    { name: 'activite', weight: 'B' },
    { name: 'lieu', weight: 'C' },
  ],
});

export const NOTICES_SEARCH = defineSearchIndex({
  name: 'notices_search',
  columns: [
    { name: 'objet', weight: 'A' },
    { name: 'acheteur', weight: 'B' },
  ],
});

export const AWARDS_SEARCH = defineSearchIndex({
  name: 'awards_search',
  columns: [
    { name: 'objet', weight: 'A' },
    { name: 'acheteur', weight: 'B' },
    { name: 'titulaires', weight: 'C' },
  ],
});

const NAF_LABELS = new Map(NAF_SECTION_F.map((n) => [n.code, n.libelle]));

const join = (parts: (string | null | undefined)[]) => parts.filter((p): p is string => !!p).join(' ') || null;

/** Rebuilds the search documents of these companies from their unit and establishments. */
export async function reindexCompanies(trx: Knex.Transaction, sirens: string[]): Promise<void> {
  for (let i = 0; i < sirens.length; i += 900) {
    const chunk = [...new Set(sirens.slice(i, i + 900))];
    const companies = await trx('companies').whereIn('siren', chunk).select('siren', 'denomination', 'sigle', 'nom_personne', 'denomination_usuelle', 'activite_principale');
    const places = await trx('establishments').whereIn('siren', chunk).select('siren', 'commune', 'enseigne', 'code_postal');
    const bySiren = new Map<string, typeof places>();
    for (const p of places) bySiren.set(p.siren, [...(bySiren.get(p.siren) ?? []), p]);
    await upsertSearchDocuments(
      trx,
      COMPANIES_SEARCH,
      companies.map((c) => {
        const estabs = bySiren.get(c.siren) ?? [];
        return {
          key: c.siren,
          fields: {
            nom: join([c.denomination, c.sigle, c.denomination_usuelle, c.nom_personne, ...new Set(estabs.map((e) => e.enseigne))]),
            activite: join([c.activite_principale, NAF_LABELS.get(c.activite_principale)]),
            lieu: join([...new Set(estabs.flatMap((e) => [e.commune, e.code_postal]))]),
          },
        };
      }),
    );
  }
}

export async function reindexNotices(trx: Knex.Transaction, rows: { marche_id: string; objet: string; acheteur_nom: string | null }[]): Promise<void> {
  await upsertSearchDocuments(
    trx,
    NOTICES_SEARCH,
    rows.map((r) => ({ key: r.marche_id, fields: { objet: r.objet, acheteur: r.acheteur_nom } })),
  );
}

export async function reindexAwards(
  trx: Knex.Transaction,
  rows: { award_key: string; objet: string | null; acheteur_nom: string | null; winners: { denomination: string | null }[] }[],
): Promise<void> {
  await upsertSearchDocuments(
    trx,
    AWARDS_SEARCH,
    rows.map((r) => ({ key: r.award_key, fields: { objet: r.objet, acheteur: r.acheteur_nom, titulaires: join(r.winners.map((w) => w.denomination)) } })),
  );
}
