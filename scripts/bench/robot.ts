// The alert robot's run (npm run bench, robot part): 10,000 active realtime alerts of
// realistic keyword queries against a 3-hour batch of 10,000 new documents of mixed sources
// (notices, awards, permits, posts, minutes, announcements, companies, contacts, sales), on a
// fresh SQLite database, and (npm run bench's large part) inside the large demo set, whose
// millions of older rows the run must not read. Measures the run (claim, reads, matching,
// writes, purge) and the process's peak memory, next to the target (≤ 60 s). Deterministic
// (a seeded generator). The bench's clock is set in January 2026, before any real import,
// so the large set's rows (entered when the bench imported them) are all after the window.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { kindOf, openDatabase, type Database } from '../../src/platform/db/database.js';
import { migrateLatest } from '../../src/migrations/index.js';
import { runRobotSlot } from '../../src/domains/robot/run.js';
import { formatInt, verdict } from './measure.js';

export const ROBOT_TARGET_SECONDS = 60;
const kindName = (db: Database) => (kindOf(db) === 'postgres' ? 'PostgreSQL' : 'SQLite');
const ALERTS = Number(process.env.BENCH_ROBOT_ALERTS ?? 10_000);
const DOCUMENTS = Number(process.env.BENCH_ROBOT_DOCUMENTS ?? 10_000);

function prng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORKS = ['toiture', 'couverture', 'zinc', 'charpente', 'bardage', 'bois', 'isolation', 'thermique', 'menuiseries', 'extérieures', 'plomberie', 'chauffage', 'ventilation', 'électricité', 'peinture', 'ravalement', 'façade', 'désamiantage', 'démolition', 'terrassement', 'voirie', 'assainissement', 'réseaux', 'maçonnerie', 'gros', 'œuvre', 'carrelage', 'étanchéité', 'photovoltaïque', 'ascenseur', 'serrurerie', 'métallerie', 'cloisons', 'plâtrerie', 'sols', 'souples', 'espaces', 'verts', 'clôture', 'rénovation', 'énergétique', 'extension', 'réhabilitation', 'construction', 'logements', 'maison', 'école', 'gymnase', 'mairie', 'collège', 'crèche', 'piscine', 'médiathèque', 'salle', 'fêtes', 'église', 'lycée', 'stade'];
const PLACES = ['Rennes', 'Nantes', 'Brest', 'Quimper', 'Vannes', 'Lorient', 'Angers', 'Laval', 'Caen', 'Rouen', 'Lille', 'Lyon', 'Bordeaux', 'Toulouse', 'Marseille', 'Nice'];
const DEPTS = ['35', '44', '29', '56', '22', '49', '53', '14', '76', '59', '69', '33', '31', '13', '06', '75'];

/** `into`: the large demo set's database (kept); without it, a fresh database of its own. */
export async function benchRobot(into?: { db: Database; label: string }): Promise<{ seconds: number }> {
  const random = prng(1515);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)] as T;
  // A document's text: a few words of the trade among ordinary ones (a 2,000-word vocabulary),
  // so that a two-word query matches a fraction of a percent of the batch, as real alerts do.
  const FILLER = Array.from({ length: 2000 }, (_, i) => `mot${i.toString(36)}`);
  const phrase = (n: number) => Array.from({ length: n }, (_, i) => (i % 8 === 0 ? pick(WORKS) : pick(FILLER))).join(' ');
  const terms = (n: number) => Array.from({ length: n }, () => pick(WORKS)).join(' ');
  const dir = into ? null : mkdtempSync(join(tmpdir(), 'bench-robot-'));
  const db: Database = into?.db ?? openDatabase(`sqlite:${join(dir as string, 'robot.sqlite')}`);
  try {
    await migrateLatest(db);
    const now = new Date('2026-01-15T08:05:00Z');
    const stamp = () => new Date(now.getTime() - 60 * 60_000 - Math.floor(random() * 3 * 3_600_000)).toISOString();
    const org = randomUUID();
    await db('organisations').insert({ id: org, name: `Bench robot ${org}`, created_at: now.toISOString() });

    // The batch: 10,000 documents that entered in the three hours before the window's end.
    const share = (n: number) => Math.round((DOCUMENTS * n) / 100);
    const insert = async (table: string, rows: Record<string, unknown>[]) => {
      for (let i = 0; i < rows.length; i += 200) await db(table).insert(rows.slice(i, i + 200));
    };
    const common = () => {
      const at = stamp();
      return { ingested_at: at, updated_at: at };
    };
    await insert('notices', Array.from({ length: share(20) }, (_, i) => ({
      marche_id: randomUUID(), annonce_id: `BENCH-26-${i}`, source: 'BOAMP', objet: `${phrase(5)} ${pick(PLACES)}`, acheteur_nom: `Commune de ${pick(PLACES)}`, buyer_id: null,
      date_parution: '2026-01-15', date_limite: new Date(now.getTime() + Math.floor(random() * 30) * 86_400_000).toISOString(), departements: JSON.stringify([pick(DEPTS)]),
      types_marche: '["TRAVAUX"]', nature: null, nature_libelle: null, procedure_libelle: null, famille: null, etat: null, cpv: null, cpv_codes: '[]', ...common(),
    })));
    await insert('awards', Array.from({ length: share(10) }, (_, i) => ({
      award_key: `bench-${i}`, id: `bench-${i}`, acheteur_siret: null, acheteur_nom: `Ville de ${pick(PLACES)}`, buyer_id: null, objet: phrase(5), cpv: null, procedure: null, nature: null,
      lieu_code: null, lieu_type: null, departement: pick(DEPTS), montant: Math.floor(random() * 2_000_000), date_notification: '2026-01-10', duree_mois: null, forme_prix: null, ...common(),
    })));
    await insert('permits', Array.from({ length: share(10) }, (_, i) => ({
      id: `BENCHPC${i}`, numero: `0353${i}`, type: 'PC', etat: '2', date_autorisation: '2026-01-10', commune: '35238', departement: pick(DEPTS), localite: pick(PLACES),
      nature_projet: phrase(3), superficie_terrain: null, demandeur: `SCI ${pick(PLACES)}`, siren_demandeur: null, siret_demandeur: null, categorie_juridique_demandeur: null,
      activite_demandeur: null, source_updated: null, ...common(),
    })));
    await insert('publications', Array.from({ length: share(15) }, () => ({
      id: randomUUID(), reseau: 'linkedin', auteur: `Mairie de ${pick(PLACES)}`, date_publication: now.toISOString(), jour: '2026-01-15', texte: `${phrase(12)} à ${pick(PLACES)}`,
      commune: null, commune_nom: pick(PLACES), departement: pick(DEPTS), ...common(),
    })));
    await insert('deliberations', Array.from({ length: share(10) }, () => ({
      id: randomUUID(), commune: '35238', commune_nom: pick(PLACES), departement: pick(DEPTS), date_seance: '2026-01-10', numero: null, titre: phrase(5), texte: phrase(60), source: null, ...common(),
    })));
    await insert('announcements', Array.from({ length: share(15) }, (_, i) => ({
      id: `BENCH-B${i}`, bulletin: 'A', numero_parution: '1', numero_annonce: i, date_parution: '2026-01-15', famille: 'creation', famille_libelle: 'Création', type_avis: null,
      type_avis_libelle: null, departement: pick(DEPTS), departement_nom: null, ville: pick(PLACES), code_postal: null, tribunal: null, type_personne: 'pm',
      denomination: `${pick(WORKS).toUpperCase()} ${pick(PLACES).toUpperCase()}`, forme_juridique: null, activite: phrase(6), sirens: '[]', jugement_famille: null,
      jugement_nature: null, jugement_date: null, detail: null, details_illisibles: '[]', ...common(),
    })));
    const companies = Array.from({ length: share(10) }, (_, i) => ({
      siren: String(990_000_000 + i), denomination: `${pick(WORKS).toUpperCase()} ${pick(WORKS).toUpperCase()} ${pick(PLACES).toUpperCase()}`, activite_principale: '43.91A',
      etat: 'A', nic_siege: '00011', date_creation: '2026-11-01', unit_known: true, ...common(),
    }));
    await insert('companies', companies);
    await insert('establishments', companies.map((c) => ({ siret: `${c.siren}00011`, siren: c.siren, nic: '00011', siege: true, etat: 'A', commune: pick(PLACES).toUpperCase(), code_postal: '35000', departement: pick(DEPTS), ingested_at: c.ingested_at, updated_at: c.updated_at })));
    await insert('contacts', Array.from({ length: share(5) }, () => ({
      id: randomUUID(), nom: `Contact ${Math.floor(random() * 1e6)}`, role: `Responsable ${phrase(2)}`, organisation: `Ville de ${pick(PLACES)}`, organisation_siren: null, organisation_siret: null,
      commune: null, commune_nom: pick(PLACES), departement: pick(DEPTS), organisation_mots: 'ville', role_mots: 'responsable', ...common(),
    })));
    await insert('sales', Array.from({ length: share(5) }, (_, i) => ({
      id_mutation: `BENCH-${i}`, date_mutation: '2026-06-01', nature_mutation: 'Vente', valeur_fonciere: 250_000, departement: pick(DEPTS), code_commune: '35238', nom_commune: pick(PLACES),
      code_postal: '35000', nombre_locaux: 1, nombre_parcelles: 1, locaux: '[]', parcelles: '[]', ...common(),
    })));

    // 10,000 realtime alerts: two or three words of the trade, a quarter with an alternative; a third in departments.
    const alerts = Array.from({ length: ALERTS }, (_, i) => {
      const query = random() < 0.25 ? `${terms(2)}, ${terms(2)}` : terms(2 + Math.floor(random() * 2));
      const departements = random() < 0.33 ? [...new Set([pick(DEPTS), pick(DEPTS)])].sort() : [];
      const sources = random() < 0.5 ? ['marche', 'dce', 'attribution', 'permis', 'reseaux_sociaux', 'mairie', 'bodacc', 'entreprise', 'contact', 'dvf'] : ['marche', 'attribution', 'permis'];
      const watched = sources.filter((s) => departements.length || (s !== 'attribution' && s !== 'dvf'));
      return {
        id: randomUUID(), organisation_id: org, created_by: org, name: `alerte ${i}`, query, frequency: 'realtime', sources: JSON.stringify(sources), sources_watched: JSON.stringify(watched),
        departements: JSON.stringify(departements), departements_followed: JSON.stringify(departements), departement: null, montant_min: random() < 0.2 ? 100_000 : null, is_active: true,
        kind: 'mots_cles', criteria: `${i}`, created_at: '2026-01-01T00:00:00.000Z', last_evaluated_at: null, robot_slot: null, robot_window_end: new Date(now.getTime() - 4 * 3_600_000 - 60_000).toISOString(),
      };
    });
    await insert('alerts', alerts);

    let peak = process.memoryUsage().rss;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 50);
    const before = process.memoryUsage().rss;
    const outcome = await runRobotSlot({ db, publicUrl: 'https://service.test', now: () => now });
    clearInterval(sampler);
    if (!outcome.ran) throw new Error('le créneau du banc n’a pas été évalué');
    const reached = outcome.seconds <= ROBOT_TARGET_SECONDS;
    console.log(
      `Robot des alertes${into ? ` (${into.label})` : ''} : ${formatInt(outcome.alertsEvaluated)} alertes × ${formatInt(DOCUMENTS)} documents nouveaux (${into ? kindName(into.db) : 'SQLite'}) en ${outcome.seconds.toFixed(1)} s ` +
        `(objectif ≤ ${ROBOT_TARGET_SECONDS} s) ${verdict(reached)} ; ${formatInt(outcome.eventsWritten)} événements écrits ` +
        `(${Object.entries(outcome.bySource).map(([s, n]) => `${s} ${formatInt(n)}`).join(', ')}) ; mémoire du processus : ${Math.round(before / 1048576)} Mio avant, pic ${Math.round(peak / 1048576)} Mio`,
    );
    return { seconds: outcome.seconds };
  } finally {
    if (!into) {
      await db.destroy();
      rmSync(dir as string, { recursive: true, force: true });
    }
  }
}

// Run alone: tsx scripts/bench/robot.ts
if (process.argv[1]?.endsWith('bench/robot.ts')) await benchRobot();
