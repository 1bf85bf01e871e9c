// Everything a company's record reads, by SIREN: its unit, head office (or establishment),
// RGE certifications in force, register identity, officers, capital, accounts and collective
// proceedings. On SQLite the separate reads (each a fraction of a millisecond, in process); on
// PostgreSQL one prepared statement: the eight separate statements, each parsed, planned and
// sent on its own, made entreprises.get 3.9x slower than on SQLite (2.80 ms CPU per call
// against 0.68 ms on the demo set).
import type { Database } from '../../platform/db/database.js';
import { kindOf } from '../../platform/db/database.js';
import { preparedText } from '../../platform/db/prepared.js';
import { PROCEEDING_FAMILIES } from '../announcements/import-bodacc.js';
import { proceedingsBySiren, type ProceedingView } from '../announcements/store.js';
import { detailsBySiren, NO_DETAILS, type CompanyDetails } from './details.js';
import { yearlyAccounts, type AccountFields } from './finances.js';
import type { Officer } from './import-rne.js';
import type { CompanyFields, EstablishmentFields, RgeFields } from './rows.js';
import { companyBySiren, type CompanyView, type RegisterIdentity } from './store.js';

/** Proceedings listed on a company's record, newest first. */
export const MAX_PROCEEDINGS = 20;

export interface RecordParts {
  /** Null when the SIREN is known neither by SIRENE (unit or establishment) nor by the register. */
  view: CompanyView | null;
  proceedings: ProceedingView[];
  details: CompanyDetails;
}

/** The separate reads (SQLite's path, and the reference the joined read answers as). */
export async function recordPartsSeparately(db: Database, siren: string, today: string): Promise<RecordParts> {
  const view = await companyBySiren(db, siren, today);
  if (!view) return { view: null, proceedings: [], details: NO_DETAILS };
  const proceedings = (await proceedingsBySiren(db, [siren], PROCEEDING_FAMILIES, MAX_PROCEEDINGS)).get(siren) ?? [];
  const details = (await detailsBySiren(db, [siren])).get(siren) ?? NO_DETAILS;
  return { view, proceedings, details };
}

const ESTABLISHMENT =
  'siret, siren, siege, etat, date_creation, activite_principale, nomenclature_activite, activite_principale_naf25, enseigne, adresse, code_postal, commune, departement';

/**
 * The same reads as `companyBySiren`, `proceedingsBySiren` and `detailsBySiren`, in the same
 * order and with the same ties, each part as JSON. $1 SIREN, $2 today, $3 proceeding families,
 * $4 proceedings at most. The establishment: the unit's head office (by its NIC, else the one
 * flagged), or without a unit, the head office, else an open one, else the first.
 */
const JOINED_SQL = `with u as (
  select siren, denomination, sigle, nom_personne, denomination_usuelle, categorie_juridique, activite_principale, nomenclature_activite,
    activite_principale_naf25, tranche_effectifs, categorie_entreprise, date_creation, etat, nic_siege
  from companies where siren = $1::text and unit_known
)
select
  (select row_to_json(u) from u) as company,
  case when exists (select 1 from u) then coalesce(
    (select row_to_json(e) from (select ${ESTABLISHMENT} from establishments where siret = $1::text || (select nic_siege from u where nic_siege <> '')) e),
    (select row_to_json(e) from (select ${ESTABLISHMENT} from establishments where siren = $1::text and siege limit 1) e))
  else
    (select row_to_json(e) from (select ${ESTABLISHMENT} from establishments where siren = $1::text order by siege desc, etat asc, siret asc limit 1) e)
  end as establishment,
  (select json_agg(r order by r.domaine) from (
    select r.siret, r.domaine, r.date_debut, r.date_fin from rge_certifications r join establishments e on e.siret = r.siret
    where e.siren = $1::text and (r.date_fin is null or r.date_fin >= $2::text) and (r.date_debut is null or r.date_debut <= $2::text)) r) as rge,
  (select row_to_json(g) from (
    select siren, denomination, categorie_juridique, activite_principale, siege_code_postal, siege_commune, capital_social_eur, officers
    from company_registers where siren = $1::text) g) as register,
  (select json_agg(a) from (
    select date_cloture, type_bilan, confidentiel, chiffre_affaires, marge_brute, ebe, resultat_net from company_accounts where siren = $1::text) a) as accounts,
  (select json_agg(p order by p.date_parution desc, p.id desc) from (
    select s.announcement_id as id, s.date_parution, s.famille, a.jugement_nature, a.jugement_date, a.tribunal
    from announcement_sirens s join announcements a on a.id = s.announcement_id
    where s.siren = $1::text and s.famille = any($3::text[])
    order by s.date_parution desc, s.announcement_id desc limit $4::integer) p) as proceedings`;

type Register = RegisterIdentity & { capital_social_eur: number | string | null; officers: string };
type Account = Omit<AccountFields, 'confidentiel' | 'chiffre_affaires' | 'marge_brute' | 'ebe' | 'resultat_net'> & {
  confidentiel: unknown;
  chiffre_affaires: number | string | null;
  marge_brute: number | string | null;
  ebe: number | string | null;
  resultat_net: number | string | null;
};
type Proceeding = Omit<ProceedingView, 'siren' | 'nature' | 'date_jugement'> & { jugement_nature: string | null; jugement_date: string | null };

interface JoinedRow {
  company: CompanyFields | null;
  establishment: (Omit<EstablishmentFields, 'siege'> & { siege: unknown }) | null;
  rge: RgeFields[] | null;
  register: Register | null;
  accounts: Account[] | null;
  proceedings: Proceeding[] | null;
}

/** A double as the driver reads it: JSON writes NaN and the infinities as strings. */
const double = (v: number | string | null): number | null => (v === null ? null : Number(v));

/** The parts from one row of the joined statement (PostgreSQL only). */
export async function recordPartsJoined(db: Database, siren: string, today: string): Promise<RecordParts> {
  const [row] = await preparedText<JoinedRow>(db, JOINED_SQL, [siren, today, PROCEEDING_FAMILIES, MAX_PROCEEDINGS]);
  if (!row) throw new Error('joined company read: no row');
  const establishment = row.establishment ? ({ ...row.establishment, siege: Boolean(row.establishment.siege) } as EstablishmentFields) : null;
  const { register: g } = row;
  let view: CompanyView | null;
  if (row.company || establishment) view = { company: row.company, establishment, rge: row.rge ?? [] };
  else if (g) {
    const register: RegisterIdentity = {
      siren: g.siren,
      denomination: g.denomination,
      categorie_juridique: g.categorie_juridique,
      activite_principale: g.activite_principale,
      siege_code_postal: g.siege_code_postal,
      siege_commune: g.siege_commune,
    };
    view = { company: null, establishment: null, rge: [], register };
  } else view = null;
  if (!view) return { view: null, proceedings: [], details: NO_DETAILS };
  const proceedings = (row.proceedings ?? []).map((p) => ({
    siren,
    id: p.id,
    date_parution: p.date_parution,
    famille: p.famille,
    nature: p.jugement_nature ?? null,
    date_jugement: p.jugement_date ?? null,
    tribunal: p.tribunal ?? null,
  }));
  const accounts: AccountFields[] = (row.accounts ?? []).map((a) => ({
    date_cloture: a.date_cloture,
    type_bilan: a.type_bilan,
    confidentiel: Boolean(a.confidentiel),
    chiffre_affaires: double(a.chiffre_affaires),
    marge_brute: double(a.marge_brute),
    ebe: double(a.ebe),
    resultat_net: double(a.resultat_net),
  }));
  const details: CompanyDetails =
    g || accounts.length
      ? { capital: g ? double(g.capital_social_eur) : null, officers: g ? (JSON.parse(g.officers) as Officer[]) : [], years: accounts.length ? yearlyAccounts(accounts) : [] }
      : NO_DETAILS;
  return { view, proceedings, details };
}

/** Everything the record of this SIREN shows, read the fastest way for the engine. */
export function recordPartsBySiren(db: Database, siren: string, today: string): Promise<RecordParts> {
  return kindOf(db) === 'postgres' ? recordPartsJoined(db, siren, today) : recordPartsSeparately(db, siren, today);
}
