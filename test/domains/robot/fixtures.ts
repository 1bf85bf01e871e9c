// Rows of every alert source, written straight into the tables (as the importers leave them),
// each with the `ingested_at` a test gives: what the robot reads.
import { randomUUID } from 'node:crypto';
import type { Database } from '../../../src/platform/db/database.js';

export const iso = (at: Date | number) => new Date(at).toISOString();

export async function createOrganisation(db: Database): Promise<string> {
  const id = randomUUID();
  await db('organisations').insert({ id, name: `Org ${id.slice(0, 6)}`, created_at: new Date().toISOString() });
  return id;
}

export interface AlertFixture {
  name?: string;
  query: string;
  frequency?: 'realtime' | 'daily' | 'weekly';
  sources: string[];
  departements?: string[];
  departementsFollowed?: string[];
  montantMin?: number | null;
  isActive?: boolean;
  createdAt: string;
}

export async function createAlert(db: Database, organisationId: string, a: AlertFixture): Promise<string> {
  const id = randomUUID();
  await db('alerts').insert({
    id,
    organisation_id: organisationId,
    created_by: randomUUID(),
    name: a.name ?? `alerte ${id.slice(0, 8)}`,
    query: a.query,
    frequency: a.frequency ?? 'realtime',
    sources: JSON.stringify(a.sources),
    sources_watched: JSON.stringify(a.sources),
    departements: JSON.stringify(a.departements ?? []),
    departements_followed: JSON.stringify(a.departementsFollowed ?? a.departements ?? []),
    departement: null,
    montant_min: a.montantMin ?? null,
    is_active: a.isActive ?? true,
    kind: 'mots_cles',
    criteria: id,
    created_at: a.createdAt,
    last_evaluated_at: null,
  });
  return id;
}

const stamps = (at: string) => ({ ingested_at: at, updated_at: at });

export async function addNotice(db: Database, n: { objet: string; departements?: string[]; dateLimite?: string | null; at: string; acheteur?: string }): Promise<string> {
  const id = randomUUID();
  await db('notices').insert({
    marche_id: id,
    annonce_id: `26-${Math.floor(Math.random() * 1e9)}`,
    source: 'BOAMP',
    objet: n.objet,
    acheteur_nom: n.acheteur ?? 'Commune de Rennes',
    buyer_id: null,
    date_parution: n.at.slice(0, 10),
    date_limite: n.dateLimite ?? null,
    departements: JSON.stringify(n.departements ?? []),
    types_marche: JSON.stringify(['TRAVAUX']),
    nature: null,
    nature_libelle: null,
    procedure_libelle: null,
    famille: null,
    etat: null,
    cpv: null,
    cpv_codes: '[]',
    ...stamps(n.at),
  });
  for (const d of n.departements ?? []) await db('notice_departements').insert({ marche_id: id, departement: d });
  return id;
}

export async function addDce(db: Database, f: { marcheId: string | null; pages: string[]; at: string }): Promise<string> {
  const id = randomUUID();
  await db('dce_files').insert({ id, marche_id: f.marcheId, annonce_id: null, label: 'DCE', version: 1, content_sha: id.replace(/-/g, '').padEnd(64, '0'), pieces: 1, bytes: 100, ...stamps(f.at) });
  await db('dce_pieces').insert({ dce_id: id, position: 0, filename: 'CCTP_lot_1.pdf', doc_type: 'cctp', lot: 1, content_type: 'application/pdf', size: 100, object_key: 'k'.repeat(64), source_pages: f.pages.length, scanned_pages: 0, reading_pages: f.pages.length });
  for (const [i, text] of f.pages.entries()) await db('dce_pages').insert({ dce_id: id, position: 0, page: i + 1, search_key: `${id}/0/${i + 1}`, text });
  return id;
}

export async function addAward(db: Database, a: { objet: string; departement: string; montant: number | null; at: string; titulaire?: string }): Promise<string> {
  const key = `21350238800019-${randomUUID().slice(0, 8)}`;
  await db('awards').insert({
    award_key: key, id: key.slice(15), acheteur_siret: '21350238800019', acheteur_nom: 'Ville de Rennes', buyer_id: null, objet: a.objet, cpv: null, procedure: null,
    nature: null, lieu_code: a.departement, lieu_type: 'Code département', departement: a.departement, montant: a.montant, date_notification: a.at.slice(0, 10),
    duree_mois: null, forme_prix: null, ...stamps(a.at),
  });
  if (a.titulaire) await db('award_winners').insert({ award_key: key, siret: '44306184100047', siren: '443061841', denomination: a.titulaire });
  return key;
}

export async function addPermit(db: Database, p: { nature: string; departement: string; etat: string; dateAutorisation: string; at: string }): Promise<string> {
  const numero = `0353${Math.floor(Math.random() * 1e9)}`;
  const id = `PC${numero}`;
  await db('permits').insert({
    id, numero, type: 'PC', etat: p.etat, date_autorisation: p.dateAutorisation, commune: '35238', departement: p.departement, localite: 'Rennes', nature_projet: p.nature,
    superficie_terrain: null, demandeur: 'SCI Les Lilas', siren_demandeur: null, siret_demandeur: null, categorie_juridique_demandeur: null, activite_demandeur: null, source_updated: null, ...stamps(p.at),
  });
  return id;
}

export async function addPublication(db: Database, p: { texte: string; departement: string; at: string }): Promise<string> {
  const id = randomUUID();
  await db('publications').insert({ id, reseau: 'linkedin', auteur: 'Mairie', date_publication: p.at, jour: p.at.slice(0, 10), texte: p.texte, commune: '35238', commune_nom: 'Rennes', departement: p.departement, ...stamps(p.at) });
  return id;
}

export async function addDeliberation(db: Database, d: { titre: string; texte: string; departement: string; at: string }): Promise<string> {
  const id = randomUUID();
  await db('deliberations').insert({ id, commune: '35238', commune_nom: 'Rennes', departement: d.departement, date_seance: d.at.slice(0, 10), numero: null, titre: d.titre, texte: d.texte, source: null, ...stamps(d.at) });
  return id;
}

export async function addAnnouncement(db: Database, a: { denomination: string; activite: string; departement: string; at: string }): Promise<string> {
  const id = `A${randomUUID().slice(0, 12)}`;
  await db('announcements').insert({
    id, bulletin: 'A', numero_parution: '1', numero_annonce: 1, date_parution: a.at.slice(0, 10), famille: 'creation', famille_libelle: 'Création', type_avis: null, type_avis_libelle: null,
    departement: a.departement, departement_nom: 'Ille-et-Vilaine', ville: 'Rennes', code_postal: '35000', tribunal: null, type_personne: 'pm', denomination: a.denomination, forme_juridique: null,
    activite: a.activite, sirens: '[]', jugement_famille: null, jugement_nature: null, jugement_date: null, detail: null, details_illisibles: '[]', ...stamps(a.at),
  });
  return id;
}

export async function addContact(db: Database, c: { nom: string; role: string; departement: string; at: string }): Promise<string> {
  const id = randomUUID();
  await db('contacts').insert({ id, nom: c.nom, role: c.role, organisation: 'Ville de Rennes', organisation_siren: null, organisation_siret: null, commune: '35238', commune_nom: 'Rennes', departement: c.departement, organisation_mots: 'ville rennes', role_mots: c.role.toLowerCase(), ...stamps(c.at) });
  return id;
}

export async function addCompany(db: Database, c: { denomination: string; departement: string; at: string }): Promise<string> {
  const siren = String(100_000_000 + Math.floor(Math.random() * 899_999_999));
  await db('companies').insert({ siren, denomination: c.denomination, activite_principale: '43.91A', etat: 'A', nic_siege: '00011', date_creation: c.at.slice(0, 10), unit_known: true, ...stamps(c.at) });
  await db('establishments').insert({ siret: `${siren}00011`, siren, nic: '00011', siege: true, etat: 'A', commune: 'RENNES', code_postal: '35000', departement: c.departement, ...stamps(c.at) });
  return siren;
}

export async function addSale(db: Database, s: { departement: string; at: string }): Promise<string> {
  const id = `2026-${Math.floor(Math.random() * 1e9)}`;
  await db('sales').insert({ id_mutation: id, date_mutation: '2026-06-01', nature_mutation: 'Vente', valeur_fonciere: 250000, departement: s.departement, code_commune: '35238', nom_commune: 'Rennes', code_postal: '35000', nombre_locaux: 1, nombre_parcelles: 1, locaux: '[]', parcelles: '[]', ...stamps(s.at) });
  return id;
}

export async function eventsOf(db: Database, alertId: string): Promise<{ kind: string; record_id: string; source: string; record: string }[]> {
  return db('alert_events').where('alert_id', alertId).orderBy('seq').select('kind', 'record_id', 'source', 'record');
}
