// DECP contracts (published JSON, ../shared/real-samples/decp) flattened as data.economie.gouv.fr's
// Opendatasoft datasets serve them: lower-case columns, holders in three column groups, one
// row per contract × holders (three a row) × amendment × amendment holder × subcontracting
// act, the amount first notified repeated on each; the 2022 dataset writes `CDL` in empty
// columns, the 2019 one leaves them null and gives `titulaire_id_1` as a number.
import { readFileSync } from 'node:fs';

type Raw = Record<string, unknown>;

const SAMPLES = new URL('../../../shared/real-samples/decp/', import.meta.url);

/** A sample's contracts (2019 `marches` list or 2024 `marches.marche`), bare NaN read as null as the importer does. */
export function sampleContracts(file: string): Raw[] {
  const text = readFileSync(new URL(file, SAMPLES), 'utf8').replace(/\bNaN\b/g, 'null');
  const parsed = JSON.parse(text) as { marches: Raw[] | { marche: Raw[] } };
  const list = Array.isArray(parsed.marches) ? parsed.marches : parsed.marches.marche;
  return list.filter((m) => !String(m._type ?? '').toLowerCase().includes('concession'));
}

const unwrap = (x: unknown, key: string): Raw => ((x as Raw)?.[key] ?? x) as Raw;
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

function chunks<T>(items: T[], size: number): T[][] {
  if (!items.length) return [[]];
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** The rows of one contract in the 2022 dataset (`decp-2022-marches-valides`). */
export function rows2022(m: Raw): Raw[] {
  const CDL = 'CDL';
  const lieu = (m.lieuExecution ?? {}) as Raw;
  const base: Raw = {
    id: m.id,
    acheteur_id: (m.acheteur as Raw | undefined)?.id ?? m['acheteur.id'],
    nature: m.nature,
    objet: m.objet,
    codecpv: m.codeCPV,
    procedure: m.procedure,
    dureemois: m.dureeMois,
    datenotification: m.dateNotification,
    datepublicationdonnees: m.datePublicationDonnees,
    montant: m.montant,
    formeprix: m.formePrix,
    offresrecues: m.offresRecues ?? null,
    idaccordcadre: m.idAccordCadre ?? CDL,
    lieuexecution_code: lieu.code,
    lieuexecution_typecode: lieu.typeCode,
    source: m.source ?? null,
  };
  const holders = list(m.titulaires).map((t) => unwrap(t, 'titulaire'));
  const amendments: Raw[] = list(m.modifications).map((x) => unwrap(x, 'modification'));
  const amendmentRows: Raw[] = amendments.length
    ? amendments.flatMap((a) => {
        const named = list(a.titulaires)
          .map((t) => unwrap(t, 'titulaire'))
          .filter((t) => t && typeof t === 'object');
        const common = {
          idmodification: a.id ?? CDL,
          montantmodification: a.montant ?? CDL,
          dureemoismodification: a.dureeMois ?? CDL,
          datenotificationmodificationmodification: a.dateNotificationModification ?? CDL,
          datepublicationdonneesmodificationmodification: a.datePublicationDonneesModification ?? CDL,
        };
        return named.length
          ? named.map((t) => ({ ...common, idtitulairemodification: t.id, typeidentifianttitulairemodification: t.typeIdentifiant }))
          : [{ ...common, idtitulairemodification: CDL, typeidentifianttitulairemodification: CDL }];
      })
    : [{ idmodification: CDL, montantmodification: CDL, dureemoismodification: CDL, datenotificationmodificationmodification: CDL, datepublicationdonneesmodificationmodification: CDL, idtitulairemodification: CDL, typeidentifianttitulairemodification: CDL }];
  const acts = list(m.actesSousTraitance).map((x) => unwrap(x, 'acteSousTraitance'));
  const actRows: Raw[] = acts.length
    ? acts.map((a) => ({ idactesoustraitance: a.id ?? CDL, montantactesoustraitance: a.montant ?? CDL, idsoustraitant: (a.sousTraitant as Raw | undefined)?.id ?? CDL }))
    : [{ idactesoustraitance: CDL, montantactesoustraitance: CDL, idsoustraitant: CDL }];
  const rows: Raw[] = [];
  for (const three of chunks(holders, 3))
    for (const amendment of amendmentRows)
      for (const act of actRows) {
        const row: Raw = { ...base, ...amendment, ...act };
        for (let n = 1; n <= 3; n++) {
          row[`titulaire_id_${n}`] = three[n - 1]?.id ?? CDL;
          row[`titulaire_typeidentifiant_${n}`] = three[n - 1]?.typeIdentifiant ?? CDL;
        }
        rows.push(row);
      }
  return rows;
}

/** The rows of one contract in the 2019 dataset (`decp-v3-marches-valides`). */
export function rows2019(m: Raw): Raw[] {
  const lieu = (m.lieuExecution ?? {}) as Raw;
  const acheteur = (m.acheteur ?? {}) as Raw;
  const base: Raw = {
    id: m.id,
    acheteur_id: acheteur.id ?? m['acheteur.id'],
    acheteur_nom: acheteur.nom ?? null,
    nature: m.nature,
    objet: m.objet,
    codecpv: m.codeCPV,
    procedure: m.procedure,
    dureemois: m.dureeMois,
    datenotification: m.dateNotification,
    datepublicationdonnees: m.datePublicationDonnees,
    montant: m.montant,
    formeprix: m.formePrix,
    lieuexecution_code: lieu.code,
    lieuexecution_typecode: lieu.typeCode,
    lieuexecution_nom: lieu.nom ?? null,
    source: m.source ?? null,
  };
  const holders = list(m.titulaires).map((t) => unwrap(t, 'titulaire'));
  const amendments = list(m.modifications).map((x) => unwrap(x, 'modification'));
  const amendmentRows: Raw[] = amendments.length
    ? amendments.map((a) => ({
        booleanmodification: 1,
        idmodification: a.id ?? null,
        objetmodification: a.objetModification ?? null,
        datenotificationmodification: a.dateNotificationModification ?? null,
        datepublicationdonneesmodification: a.datePublicationDonneesModification ?? null,
        montantmodification: a.montant ?? null,
        dureemoismodification: a.dureeMois ?? null,
        titulairesmodification: a.titulaires === undefined ? null : JSON.stringify(a.titulaires),
      }))
    : [{ booleanmodification: 0 }];
  const rows: Raw[] = [];
  for (const three of chunks(holders, 3))
    for (const amendment of amendmentRows) {
      const row: Raw = { ...base, ...amendment };
      for (let n = 1; n <= 3; n++) {
        const h = three[n - 1];
        const id = h?.id ?? null;
        // The first holder's id is a number column in this dataset.
        row[`titulaire_id_${n}`] = n === 1 && typeof id === 'string' && /^\d+$/.test(id) ? Number(id) : id;
        row[`titulaire_typeidentifiant_${n}`] = h?.typeIdentifiant ?? null;
        row[`titulaire_denominationsociale_${n}`] = h?.denominationSociale ?? null;
      }
      rows.push(row);
    }
  return rows;
}
