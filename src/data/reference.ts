// Reads of the reference lists.
import type { Knex } from 'knex';
import type { Database } from './database.js';
import { containsPattern, foldedWords } from './text-fold.js';

import type { components } from '../../generated/openapi-types.js';

// Rows are returned in the contract's own shapes.
export type AlertSourceRow = components['schemas']['AlertSource'];
export type DepartementRow = components['schemas']['Departement'];
export type RegionRow = components['schemas']['Region'];
export type NafRow = components['schemas']['NafCode'];
export type CpvRow = components['schemas']['CpvCode'];

/** Every folded word of the query must appear in the folded column. */
function whereAllWords(query: Knex.QueryBuilder, column: string, text: string | undefined): void {
  for (const word of text ? foldedWords(text) : []) query.whereRaw(`${column} like ? escape '\\'`, [containsPattern(word)]);
}

export async function listAlertSources(db: Database): Promise<AlertSourceRow[]> {
  const rows = await db('ref_alert_sources').select('code', 'libelle', 'surveille', 'departements_requis', 'terme_applique').orderBy('position');
  return rows.map((r) => ({ ...r, departements_requis: Boolean(r.departements_requis), terme_applique: Boolean(r.terme_applique) }));
}

export async function listDepartements(db: Database, filter: { region?: string; query?: string }): Promise<DepartementRow[]> {
  const q = db('ref_departements as d')
    .leftJoin('ref_regions as r', 'r.code', 'd.region_code')
    .select('d.code', 'd.nom', 'd.region_code as region', 'r.nom as region_nom', 'd.outre_mer')
    .orderBy('d.code');
  if (filter.region) q.where('d.region_code', filter.region);
  if (filter.query) {
    const code = filter.query.trim().toUpperCase();
    q.where((w) => {
      w.where('d.code', code).orWhere((inner) => whereAllWords(inner, 'd.nom_plie', filter.query));
    });
  }
  const rows = await q;
  return rows.map((r) => ({ ...r, outre_mer: Boolean(r.outre_mer) }));
}

export async function listRegions(db: Database): Promise<RegionRow[]> {
  const regions = await db('ref_regions').select('code', 'nom').orderBy('code');
  const deps = await db('ref_departements').select('code', 'region_code').whereNotNull('region_code').orderBy('code');
  return regions.map((r) => ({ code: r.code, nom: r.nom, departements: deps.filter((d) => d.region_code === r.code).map((d) => d.code) }));
}

export async function listNaf(db: Database, filter: { prefix?: string; query?: string }): Promise<NafRow[]> {
  const q = db('ref_naf').select('code', 'libelle', 'division', 'groupe').orderBy('code');
  if (filter.prefix) q.whereRaw(`code like ? escape '\\'`, [`${filter.prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`]);
  whereAllWords(q, 'libelle_plie', filter.query);
  return q;
}

export async function listCpv(db: Database, filter: { prefix?: string; query?: string }): Promise<CpvRow[]> {
  const q = db('ref_cpv').select('code', 'libelle', 'niveau', 'parent').orderBy('code');
  if (filter.prefix) q.whereRaw('code like ?', [`${filter.prefix}%`]);
  whereAllWords(q, 'libelle_plie', filter.query);
  const rows = await q;
  return rows.map((r) => ({ ...r, niveau: Number(r.niveau) }));
}

