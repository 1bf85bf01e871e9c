// The national company register (RNE, INPI): one company a record, as its API answers
// (`/api/companies/{siren}`: {"id", "siren", "updatedAt", "formality": {"siren",
// "diffusionCommerciale", "content": {"personneMorale" | "personnePhysique": …}}}) and as its
// bulk stock is distributed (a zip of JSON files, each an array of such companies). JSON,
// JSON lines, several documents one after the other, or the zip.
//
// No real RNE file could be found published (SOURCES.md): the paths read come from the INPI's
// published documentation of the format as the clients of its API read it (2026-11, found with
// the project's search tools): `formality.content.personneMorale.composition.pouvoirs[]`, each
// {"typeDePersonne": "INDIVIDU", "roleEntreprise": "73", "individu": {"descriptionPersonne":
// {"nom", "prenoms": […], "dateDeNaissance": "YYYY-MM"}, "adresseDomicile": {…}}} or
// {"typeDePersonne": "ENTREPRISE", "entreprise": {"siren", "denomination", "roleEntreprise"}};
// the capital under `personneMorale.identite.description.montantCapital` (`deviseCapital`).
//
// Kept, as the public registers show them: an officer's name, first names, role and year of
// birth (never the month or day, never an address: `adresseDomicile` is never read). A company
// that refused commercial diffusion (`diffusionCommerciale` false) keeps its company officers
// only. A newer filing (`updatedAt`) replaces an older one, never the reverse.
import type { Readable } from 'node:stream';
import type { Knex } from 'knex';
import type { Importer, Mapped } from '../../import/importer.js';
import { jsonValueRecords } from '../../import/json-values.js';
import { insertIgnoring, upsertRows } from '../../import/upsert.js';
import { RNE_ROLE_LABELS } from './labels.js';
import { reindexCompanies } from './search-index.js';

type Json = Record<string, unknown>;

/** An officer on a company's record. */
export interface Officer {
  type: 'personne_physique' | 'personne_morale';
  nom: string;
  prenoms: string | null;
  qualite: string;
  annee_naissance: number | null;
  siren: string | null;
  denomination: string | null;
}

export interface RegisterRow {
  siren: string;
  /** The register's own identity: what a company absent from the SIRENE stock imported is shown by. */
  denomination: string | null;
  categorie_juridique: string | null;
  activite_principale: string | null;
  /** The registered office of a legal person only: never an individual entrepreneur's address. */
  siege_code_postal: string | null;
  siege_commune: string | null;
  capital_social_eur: number | null;
  officers: string;
  officers_count: number;
  source_updated: string | null;
  ingested_at: string;
  updated_at: string;
}

/** The import's note for a company the register knows and the SIRENE stock imported does not. */
export const RNE_ONLY_NOTE = 'entreprise absente du stock SIRENE importé : fiche tirée de l’identité du registre (RNE)';

/** Officers kept on a record at most (the contract's maxItems). */
export const MAX_OFFICERS = 100;
const MAX_TEXT = 500;

const obj = (v: unknown): Json | null => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : null);
const text = (v: unknown): string | null => {
  if (typeof v === 'number') return String(v);
  if (typeof v !== 'string') return null;
  const t = v.replace(/\s+/g, ' ').trim();
  return t ? t.slice(0, MAX_TEXT) : null;
};
const digits = (v: unknown): string => (typeof v === 'string' || typeof v === 'number' ? String(v).replace(/\D/g, '') : '');
const falsy = (v: unknown): boolean => v === false || (typeof v === 'string' && /^(false|n|non|0)$/i.test(v.trim()));

function roleLabel(code: unknown): string {
  const c = text(code);
  if (!c) return 'Rôle non précisé';
  return RNE_ROLE_LABELS[c] ?? `Rôle de code ${c} (nomenclature INPI)`;
}

/** The year of a `YYYY-MM` or `YYYY-MM-DD` date of birth, and nothing else of it. */
function birthYear(v: unknown, now: string): number | null {
  const m = /^(\d{4})(?:-|$)/.exec(typeof v === 'string' ? v.trim() : '');
  if (!m) return null;
  const year = Number(m[1]);
  return year >= 1900 && year <= Number(now.slice(0, 4)) ? year : null;
}

function firstNames(v: unknown): string | null {
  if (Array.isArray(v)) return text(v.filter((p) => typeof p === 'string').join(' '));
  return text(v);
}

function officerOf(p: Json, diffusible: boolean, now: string, notes: Set<string>): Officer | null {
  if (p.actif === false) return null;
  const individu = obj(p.individu);
  const entreprise = obj(p.entreprise);
  const kind = text(p.typeDePersonne)?.toUpperCase() ?? (individu ? 'INDIVIDU' : entreprise ? 'ENTREPRISE' : null);
  if (kind === 'INDIVIDU' && individu) {
    if (!diffusible) {
      notes.add('dirigeant personne physique non diffusé (diffusion commerciale refusée)');
      return null;
    }
    const d = obj(individu.descriptionPersonne) ?? {};
    const nom = text(d.nom) ?? text(d.nomUsage);
    if (!nom) {
      notes.add('dirigeant sans nom ignoré');
      return null;
    }
    return { type: 'personne_physique', nom, prenoms: firstNames(d.prenoms), qualite: roleLabel(p.roleEntreprise ?? d.role), annee_naissance: birthYear(d.dateDeNaissance, now), siren: null, denomination: null };
  }
  if (kind === 'ENTREPRISE' && entreprise) {
    const denomination = text(entreprise.denomination);
    const siren = digits(entreprise.siren);
    if (!denomination && siren.length !== 9) {
      notes.add('dirigeant personne morale sans dénomination ni SIREN ignoré');
      return null;
    }
    return {
      type: 'personne_morale',
      nom: denomination ?? `Entreprise ${siren}`,
      prenoms: null,
      qualite: roleLabel(p.roleEntreprise ?? entreprise.roleEntreprise),
      annee_naissance: null,
      siren: siren.length === 9 ? siren : null,
      denomination,
    };
  }
  notes.add('pouvoir de type inconnu ignoré');
  return null;
}

/** The capital in euros: `montantCapital` as published, when its currency is the euro (or not given). */
function capitalOf(identite: Json | null, person: Json, notes: Set<string>): number | null {
  const description = obj(identite?.description) ?? obj(person.description);
  if (!description || description.montantCapital === undefined || description.montantCapital === null) return null;
  const raw = description.montantCapital;
  const amount = typeof raw === 'number' ? raw : typeof raw === 'string' && raw.trim() ? Number(raw.replace(/\s/g, '').replace(',', '.')) : NaN;
  if (!Number.isFinite(amount) || amount < 0) {
    notes.add('capital illisible');
    return null;
  }
  const currency = text(description.deviseCapital);
  if (currency && !/^(eur|€|euros?)$/i.test(currency)) {
    notes.add('capital dans une autre devise que l’euro non repris');
    return null;
  }
  return amount;
}

/** A NAF rév. 2 code, as the register's APE code reads once dotted. */
const NAF_REV2 = /^\d{2}\.\d{2}[A-Z]$/;

/**
 * Gives the companies known by the register alone a provisional `companies` row
 * (`unit_known` false, as establishments imported before their unit have), indexed from the
 * register's identity as it stands after this batch (a newer filing wins): the searches and
 * their filters (active, NAF) find them as they find the SIRENE units. A later SIRENE unit
 * replaces the row whole; its establishments make the row theirs.
 */
async function provideRegisterUnits(trx: Knex.Transaction, sirens: readonly string[], now: string): Promise<void> {
  for (let i = 0; i < sirens.length; i += 900) {
    const slice = sirens.slice(i, i + 900);
    const identities = (await trx('company_registers').whereIn('siren', slice).select('siren', 'activite_principale')) as { siren: string; activite_principale: string | null }[];
    const activity = (g: { activite_principale: string | null }) => {
      const code = g.activite_principale && NAF_REV2.test(g.activite_principale) ? g.activite_principale : null;
      return { activite_principale: code, nomenclature_activite: code ? 'NAFRev2' : null };
    };
    const stored = new Map<string, string | null>();
    for (const r of (await trx('companies').whereIn('siren', slice).select('siren', 'activite_principale')) as { siren: string; activite_principale: string | null }[]) stored.set(r.siren, r.activite_principale);
    // The register lists companies that are registered: active, as the record says.
    const fresh = identities.filter((g) => !stored.has(g.siren)).map((g) => ({ siren: g.siren, ...activity(g), etat: 'A', nic_siege: null, unit_known: false, source_updated: null, ingested_at: now, updated_at: now }));
    await insertIgnoring(trx, 'companies', 'siren', fresh);
    for (const g of identities) {
      if (!stored.has(g.siren) || stored.get(g.siren) === activity(g).activite_principale) continue;
      await trx('companies').where({ siren: g.siren, unit_known: false }).update({ ...activity(g), updated_at: now });
    }
  }
  await reindexCompanies(trx, sirens);
}

export const rne: Importer<unknown, RegisterRow> = {
  name: 'rne',
  input: {
    unit: 'enregistrement',
    layouts: 'une entreprise du RNE par objet ({"formality": {"siren", "content": {"personneMorale" | "personnePhysique"}}}) : réponse de l’API, tableau, un objet par ligne, ou archive zip de fichiers JSON (stock)',
    zipEntries: 'all-json',
  },
  read: (stream: Readable) => jsonValueRecords(stream),
  map(raw, now): Mapped<RegisterRow> {
    const record = obj(raw);
    if (!record) return { skip: 'enregistrement qui n’est pas un objet' };
    const formality = obj(record.formality) ?? (obj(record.content) ? record : null);
    const content = obj(formality?.content);
    if (!formality || !content) return { skip: 'pas de formalité (« formality.content ») dans l’enregistrement' };
    const person = obj(content.personneMorale) ?? obj(content.personnePhysique);
    if (!person) return { skip: 'ni « personneMorale » ni « personnePhysique » dans la formalité' };
    const identite = obj(person.identite);
    const siren = [formality.siren, record.siren, obj(identite?.entreprise)?.siren].map(digits).find((s) => s.length === 9);
    if (!siren) return { skip: `SIREN absent ou invalide (${text(formality.siren) ?? text(record.siren) ?? ''})` };
    const notes = new Set<string>();
    const diffusible = !falsy(formality.diffusionCommerciale);
    const officers: Officer[] = [];
    const pouvoirs = obj(person.composition)?.pouvoirs;
    for (const p of Array.isArray(pouvoirs) ? pouvoirs : []) {
      const o = obj(p);
      const officer = o ? officerOf(o, diffusible, now, notes) : null;
      if (officer) officers.push(officer);
    }
    // An individual entrepreneur without a list of powers: the entrepreneur runs the business.
    if (!officers.length && obj(content.personnePhysique) && diffusible) {
      const d = obj(obj(identite?.entrepreneur)?.descriptionPersonne);
      const nom = text(d?.nom) ?? text(d?.nomUsage);
      if (d && nom) officers.push({ type: 'personne_physique', nom, prenoms: firstNames(d.prenoms), qualite: 'Entrepreneur individuel', annee_naissance: birthYear(d.dateDeNaissance, now), siren: null, denomination: null });
    }
    if (officers.length > MAX_OFFICERS) notes.add(`plus de ${MAX_OFFICERS} dirigeants : les premiers gardés`);
    const kept = officers.slice(0, MAX_OFFICERS);
    const updated = text(record.updatedAt) ?? text(formality.updated);
    const company = obj(identite?.entreprise);
    const moral = !!obj(content.personneMorale);
    const office = moral ? obj(obj(person.adresseEntreprise)?.adresse) : null;
    const entrepreneur = obj(obj(identite?.entrepreneur)?.descriptionPersonne);
    // An individual entrepreneur's business is named after the person (as SIRENE does), when diffusible.
    const personName = !moral && diffusible && entrepreneur ? text([text(entrepreneur.nom) ?? text(entrepreneur.nomUsage), firstNames(entrepreneur.prenoms)].filter(Boolean).join(' ')) : null;
    const ape = text(company?.codeApe)?.replace(/\s/g, '').toUpperCase() ?? null;
    const row: RegisterRow = {
      siren,
      denomination: text(company?.denomination)?.slice(0, 300) ?? personName?.slice(0, 300) ?? null,
      categorie_juridique: text(company?.formeJuridique)?.slice(0, 10) ?? null,
      // The register writes the APE code without its dot (4321A): the NAF way (43.21A).
      activite_principale: ape && /^\d{4}[A-Z]$/.test(ape) ? `${ape.slice(0, 2)}.${ape.slice(2)}` : (ape?.slice(0, 10) ?? null),
      siege_code_postal: text(office?.codePostal)?.slice(0, 10) ?? null,
      siege_commune: text(office?.commune)?.slice(0, 200) ?? null,
      capital_social_eur: obj(content.personneMorale) ? capitalOf(identite, person, notes) : null,
      officers: JSON.stringify(kept),
      officers_count: kept.length,
      source_updated: updated && /^\d{4}-\d{2}-\d{2}/.test(updated) ? updated : null,
      ingested_at: now,
      updated_at: now,
    };
    return notes.size ? { row, notes: [...notes] } : { row };
  },
  async write(trx, rows, now) {
    const { applied: _applied, ...counts } = await upsertRows(trx, 'company_registers', 'siren', rows, { versionColumn: 'source_updated', keepOnUpdate: ['ingested_at'] });
    // Companies the SIRENE stock imported does not hold (yet): shown from the register's identity, counted.
    const sirens = [...new Set(rows.map((r) => r.siren))];
    const known = new Set<string>();
    for (let i = 0; i < sirens.length; i += 900) {
      const slice = sirens.slice(i, i + 900);
      for (const r of await trx('companies').whereIn('siren', slice).where('unit_known', true).select('siren')) known.add(r.siren as string);
      for (const r of await trx('establishments').whereIn('siren', slice).distinct('siren')) known.add(r.siren as string);
    }
    const alone = sirens.filter((s) => !known.has(s));
    if (!alone.length) return counts;
    await provideRegisterUnits(trx, alone, now);
    return { ...counts, notes: { [RNE_ONLY_NOTE]: alone.length } };
  },
  sortKey: (row) => row.siren,
};
