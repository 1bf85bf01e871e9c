// Reads of the reference lists. They are seeded by a migration and never change while the
// service runs, so each table is read once per database handle and filtered in memory.
import type { components } from '../../../generated/openapi-types.js';
import type { Database } from '../../platform/db/database.js';
import { foldedWords } from '../../platform/search/text-fold.js';

// Rows are returned in the contract's own shapes.
export type AlertSourceRow = Omit<components['schemas']['AlertSource'], 'donnees'>;
export type DepartementRow = components['schemas']['Departement'];
export type RegionRow = components['schemas']['Region'];
export type NafRow = components['schemas']['NafCode'];
export type CpvRow = components['schemas']['CpvCode'];

interface Lists {
  sources: AlertSourceRow[];
  departements: (DepartementRow & { folded: string })[];
  regions: RegionRow[];
  naf: (NafRow & { folded: string })[];
  cpv: (CpvRow & { folded: string })[];
}

const loaded = new WeakMap<Database, Promise<Lists>>();

async function readLists(db: Database): Promise<Lists> {
  const sources = await db('ref_alert_sources').select('code', 'libelle', 'surveille', 'departements_requis', 'terme_applique').orderBy('position');
  const departements = await db('ref_departements as d')
    .leftJoin('ref_regions as r', 'r.code', 'd.region_code')
    .select('d.code', 'd.nom', 'd.nom_plie', 'd.region_code as region', 'r.nom as region_nom', 'd.outre_mer')
    .orderBy('d.code');
  const regions = await db('ref_regions').select('code', 'nom').orderBy('code');
  const naf = await db('ref_naf').select('code', 'libelle', 'libelle_plie', 'division', 'groupe').orderBy('code');
  const cpv = await db('ref_cpv').select('code', 'libelle', 'libelle_plie', 'niveau', 'parent').orderBy('code');
  return {
    sources: sources.map((r) => ({ ...r, departements_requis: Boolean(r.departements_requis), terme_applique: Boolean(r.terme_applique) })),
    departements: departements.map(({ nom_plie, ...r }) => ({ ...r, outre_mer: Boolean(r.outre_mer), folded: nom_plie })),
    regions: regions.map((r) => ({ code: r.code, nom: r.nom, departements: departements.filter((d) => d.region === r.code).map((d) => d.code) })),
    naf: naf.map(({ libelle_plie, ...r }) => ({ ...r, folded: libelle_plie })),
    cpv: cpv.map(({ libelle_plie, ...r }) => ({ ...r, niveau: Number(r.niveau), folded: libelle_plie })),
  };
}

function lists(db: Database): Promise<Lists> {
  let found = loaded.get(db);
  if (!found) {
    found = readLists(db);
    // A failed read (database down) is not kept: the next call tries again.
    found.catch(() => loaded.delete(db));
    loaded.set(db, found);
  }
  return found;
}

/** Every folded word of the query appears in the folded text. */
function hasAllWords(folded: string, query: string | undefined): boolean {
  return foldedWords(query ?? '').every((w) => folded.includes(w));
}

function strip<T extends { folded: string }>({ folded: _folded, ...row }: T): Omit<T, 'folded'> {
  return row;
}

export async function listAlertSources(db: Database): Promise<AlertSourceRow[]> {
  return (await lists(db)).sources;
}

export async function listDepartements(db: Database, filter: { region?: string; query?: string }): Promise<DepartementRow[]> {
  const code = filter.query?.trim().toUpperCase();
  return (await lists(db)).departements
    .filter((d) => !filter.region || d.region === filter.region)
    .filter((d) => !filter.query || d.code === code || hasAllWords(d.folded, filter.query))
    .map(strip);
}

export async function listRegions(db: Database): Promise<RegionRow[]> {
  return (await lists(db)).regions;
}

export async function listNaf(db: Database, filter: { prefix?: string; query?: string }): Promise<NafRow[]> {
  return (await lists(db)).naf.filter((n) => (!filter.prefix || n.code.startsWith(filter.prefix)) && hasAllWords(n.folded, filter.query)).map(strip);
}

export async function listCpv(db: Database, filter: { prefix?: string; query?: string }): Promise<CpvRow[]> {
  return (await lists(db)).cpv.filter((c) => (!filter.prefix || c.code.startsWith(filter.prefix)) && hasAllWords(c.folded, filter.query)).map(strip);
}

