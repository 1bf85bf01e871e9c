// French full-text search matches identically on SQLite FTS5 and PostgreSQL (run with TEST_DB=postgres too), with the documents in their own table or, on PostgreSQL, in their records' table: folded case and accents both ways, all words required, exact phrases within one field, comma OR, prefix on the last word, ranking and stable ties, pagination, capped counts, replace and delete by key, and user text that never reaches SQL or the FTS syntax.
import { expect } from 'chai';
import { openDatabase, type Database } from '../../../src/platform/db/database.js';
import {
  bestMatches,
  countMatches,
  createSearchIndex,
  defineSearchIndex,
  deleteSearchDocuments,
  dropSearchIndex,
  indexedWords,
  matchingKeys,
  matchingRecords,
  searchIndexTable,
  orderByRelevance,
  searchKeys,
  searchMatches,
  upsertSearchDocuments,
  type SearchDocument,
} from '../../../src/platform/search/full-text.js';
import { matchesWords, parseQuery, type ParsedQuery } from '../../../src/platform/search/query-syntax.js';
import { QuerySyntaxError } from '../../../src/platform/search/errors.js';
import { freshDatabase, usingPostgres, type TestDatabaseUrl } from '../../helpers/service.js';

const INDEX = defineSearchIndex({ name: 'demo_search', columns: [{ name: 'titre', weight: 'A' }, { name: 'texte', weight: 'B' }] });

// key, titre, texte: company names and notice objects as the sources write them.
const CORPUS: [string, string, string | null][] = [
  ['elec-rhone', 'Électricité Générale du Rhône', 'Installation électrique et courants faibles à Lyon'],
  ['elec-lot', "Travaux d'électricité", "Lot 25 : électricité, chauffage et ventilation de l'école"],
  ['ecole-ferry', 'École maternelle Jules-Ferry', "Réhabilitation de l'école et de la cantine"],
  ['ecole-centre', 'ECOLE PRIMAIRE DU CENTRE', 'Désamiantage et peinture'],
  ['coeur-ville', 'Aménagement du Cœur de ville', 'Voirie, réseaux divers et espaces verts'],
  ['oeuvre', "Maîtrise d'œuvre pour la médiathèque", 'Mission de maîtrise d’œuvre complète'],
  ['etancheite', "Travaux d'étanchéité des toitures-terrasses", "Réfection de l'étanchéité du gymnase"],
  ['st-etienne', 'Saint-Étienne Métropole', 'Entretien des bâtiments communaux de Saint-Étienne'],
  ['toiture-zinc', 'Réfection de la toiture en zinc', 'Couverture zinc à joint debout, bâtiment classé'],
  ['toiture-tuile', 'Réfection de la toiture en tuiles', 'Charpente et couverture tuiles terre cuite'],
  ['zinguerie', 'Zinguerie et gouttières', 'Remplacement des descentes en zinc'],
  ['bardage-bois', 'Bardage bois de la salle des fêtes', 'Isolation par l’extérieur'],
  ['bois-bardage', 'Bois bardage et lambris', 'Fourniture de bardage'],
  ['split-phrase', 'Lot menuiserie bardage', 'bois massif et panneaux'],
  ['couverture', 'Couverture Martin', 'Couvreur zingueur depuis 1982'],
  ['couvreur', 'Couvreur Petit', 'Entreprise de couverture et de zinguerie'],
  ['charpente-titre', 'Charpente Dupont', 'Entreprise de menuiserie générale'],
  ['charpente-texte', 'Menuiserie Dupont', 'Entreprise de charpente générale'],
  ['plomb-b', 'Plomberie Bravo', 'Artisan plombier chauffagiste'],
  ['plomb_a', 'Plomberie Alpha', 'Artisan plombier chauffagiste'],
  ['plombC', 'Plomberie Charlie', 'Artisan plombier chauffagiste'],
  ['plomba', 'Plomberie Delta', 'Artisan plombier chauffagiste'],
  ['lot-2', 'Lot 2 gros œuvre', 'Maçonnerie et béton armé'],
  ['lot-25', 'Lot 25 peinture', 'Peinture intérieure des salles'],
  ['sql-ish', "L'entreprise O'Neil & fils", '100 % satisfaits : taux_reduit near-zéro'],
  ['near', 'Near Construction', 'Entreprise proche de vous'],
  ['or', 'Or et Argent Rénovation', 'Dorure à la feuille d’or'],
  ['jusqua', "Travaux jusqu'à la fin de l'année", 'Chantier du lycée'],
  ['aujourdhui', "Aujourd'hui Rénovation", null],
  ['hlm', 'Office public HLM', 'Réhabilitation thermique de 120 logements et remplacement des menuiseries'],
  ['ref-3e4x', 'Marché réf. 3E4X', 'Pièces 1e5x et 0x1f'],
];

const docs: SearchDocument[] = CORPUS.map(([key, titre, texte]) => ({ key, fields: { titre, texte } }));

/** What the engines must answer: the reference matcher over the same indexed words. */
function expected(parsed: ParsedQuery, corpus: SearchDocument[] = docs): string[] {
  return corpus
    .filter((d) => matchesWords(parsed, indexedWords(INDEX, d.fields)))
    .map((d) => d.key)
    .sort();
}

describe(`full-text search (${usingPostgres ? 'PostgreSQL' : 'SQLite'})`, () => {
  let database: TestDatabaseUrl;
  let db: Database;

  const keys = async (query: string, limit = 100) => (await searchKeys(db, INDEX, parseQuery(query), { limit })).map((h) => h.key);
  const found = async (query: string) => (await keys(query)).sort();

  before(async () => {
    database = freshDatabase();
    await database.prepare();
    db = openDatabase(database.databaseUrl);
    await createSearchIndex(db, INDEX);
    await upsertSearchDocuments(db, INDEX, docs);
  });
  after(async () => {
    await db.destroy();
    await database.cleanup();
  });

  it('folds accents and case both ways', async () => {
    expect(await found('electricite')).to.deep.equal(['elec-lot', 'elec-rhone']);
    expect(await found('ÉLECTRICITÉ')).to.deep.equal(['elec-lot', 'elec-rhone']);
    expect(await found('ÉCOLE')).to.deep.equal(['ecole-centre', 'ecole-ferry', 'elec-lot']);
    expect(await found('école primaire')).to.deep.equal(['ecole-centre']);
    expect(await found('cœur')).to.deep.equal(['coeur-ville']);
    expect(await found('COEUR DE VILLE')).to.deep.equal(['coeur-ville']);
    expect(await found('oeuvre')).to.deep.equal(['lot-2', 'oeuvre']);
  });

  it('reads apostrophes, elisions and hyphens as the words they separate', async () => {
    expect(await found("d'étanchéité")).to.deep.equal(['etancheite']);
    expect(await found('etancheite')).to.deep.equal(['etancheite']);
    expect(await found("\"maîtrise d'œuvre\"")).to.deep.equal(['oeuvre']);
    expect(await found('maitrise oeuvre')).to.deep.equal(['oeuvre']);
    expect(await found('saint-étienne')).to.deep.equal(['st-etienne']);
    expect(await found('"saint etienne"')).to.deep.equal(['st-etienne']);
    expect(await found('toitures terrasses')).to.deep.equal(['etancheite']);
    expect(await found("aujourd'hui")).to.deep.equal(['aujourdhui']);
    expect(await found("o'neil")).to.deep.equal(['sql-ish']);
  });

  it('keeps whole the words a PostgreSQL parser would split (3e4x), on both engines', async () => {
    expect(await found('3e4x')).to.deep.equal(['ref-3e4x']);
    expect(await found('"3e4x pieces 1e5x"')).to.deep.equal([]);
    expect(await found('"pieces 1e5x"')).to.deep.equal(['ref-3e4x']);
    expect(await found('3e4')).to.deep.equal(['ref-3e4x']);
    expect(await found('"3e4" x')).to.deep.equal([]);
  });

  it('refuses a hand-made query that parseQuery would not give', async () => {
    const forged: ParsedQuery = { groups: [{ terms: [{ kind: 'word', word: 'zinc" OR "a', prefix: false }] }], canonical: '' };
    await searchKeys(db, INDEX, forged, { limit: 5 }).then(
      () => expect.fail('accepted'),
      (err: Error) => expect(err.message).to.match(/parseQuery/),
    );
    expect(() => searchMatches(db, INDEX, { groups: [], canonical: '' })).to.throw(/parseQuery/);
  });

  it('requires every word', async () => {
    expect(await found('toiture zinc')).to.deep.equal(['toiture-zinc']);
    expect(await found('réfection toiture')).to.deep.equal(['etancheite', 'toiture-tuile', 'toiture-zinc']);
    expect(await found('réfection toiture tuiles')).to.deep.equal(['toiture-tuile']);
    expect(await found('toiture ardoise')).to.deep.equal([]);
  });

  it('matches a phrase exactly: consecutive words, in order, within one field', async () => {
    expect(await found('"bardage bois"')).to.deep.equal(['bardage-bois']);
    expect(await found('"bois bardage"')).to.deep.equal(['bois-bardage']);
    // Without quotes, the words anywhere; the phrase never spans the end of a title and the start of a text.
    expect(await found('bardage bois')).to.deep.equal(['bardage-bois', 'bois-bardage', 'split-phrase']);
    expect(await found('"salle des fetes"')).to.deep.equal(['bardage-bois']);
    expect(await found('"des salle"')).to.deep.equal([]);
  });

  it('ORs the alternatives separated by commas', async () => {
    expect(await found('toiture zinc, "bardage bois"')).to.deep.equal(['bardage-bois', 'toiture-zinc']);
    expect(await found('cantine, gymnase, lycée')).to.deep.equal(['ecole-ferry', 'etancheite', 'jusqua']);
    expect(await found('introuvable, zinguerie')).to.deep.equal(['couvreur', 'zinguerie']);
  });

  it('matches the last word of each alternative as a prefix, and only that one', async () => {
    expect(await found('couvert')).to.deep.equal(['couverture', 'couvreur', 'toiture-tuile', 'toiture-zinc']);
    expect(await found('couvert toiture')).to.deep.equal([]);
    expect(await found('zin')).to.deep.equal(['couverture', 'couvreur', 'toiture-zinc', 'zinguerie']);
    expect(await found('"zinc"')).to.deep.equal(['toiture-zinc', 'zinguerie']);
    expect(await found('toiture "zin"')).to.deep.equal([]);
    // Under 3 characters, a last word is whole: "lot 2" is not "lot 25".
    expect(await found('lot 2')).to.deep.equal(['lot-2']);
    expect(await found('lot 25')).to.deep.equal(['elec-lot', 'lot-25']);
    expect(await found('gros, couv')).to.deep.equal(['couverture', 'couvreur', 'lot-2', 'toiture-tuile', 'toiture-zinc']);
  });

  it('ranks first a document matching more of the query, or matching it in the title', async () => {
    const either = await keys('toiture, zinc');
    expect(either[0]).to.equal('toiture-zinc');
    expect(either).to.have.members(['toiture-zinc', 'toiture-tuile', 'zinguerie', 'etancheite']);
    const charpente = await keys('charpente');
    expect(charpente.indexOf('charpente-titre')).to.be.lessThan(charpente.indexOf('charpente-texte'));
    expect(charpente[0]).to.equal('charpente-titre');
    const hits = await searchKeys(db, INDEX, parseQuery('toiture, zinc'), { limit: 10 });
    for (let i = 1; i < hits.length; i++) expect((hits[i - 1] as { rank: number }).rank).to.be.at.least((hits[i] as { rank: number }).rank);
  });

  it('breaks ties by key in byte order, the same on both engines', async () => {
    const hits = await searchKeys(db, INDEX, parseQuery('plomberie'), { limit: 10 });
    expect(hits.map((h) => h.key)).to.deep.equal(['plomb-b', 'plombC', 'plomb_a', 'plomba']);
    expect(new Set(hits.map((h) => h.rank)).size).to.equal(1);
    for (let i = 0; i < 3; i++) expect(await keys('plomberie')).to.deep.equal(hits.map((h) => h.key));
  });

  it('pages with limit and offset exactly as the full list sliced', async () => {
    const parsed = parseQuery('travaux, réfection, entreprise, lot, plomberie');
    const full = (await searchKeys(db, INDEX, parsed, { limit: 1000 })).map((h) => h.key);
    expect(full.length).to.be.greaterThan(12);
    expect([...full].sort()).to.deep.equal(expected(parsed));
    for (const size of [1, 3, 5]) {
      const pages: string[] = [];
      for (let offset = 0; offset < full.length + size; offset += size)
        pages.push(...(await searchKeys(db, INDEX, parsed, { limit: size, offset })).map((h) => h.key));
      expect(pages).to.deep.equal(full);
    }
    expect(await searchKeys(db, INDEX, parsed, { limit: 5, offset: full.length })).to.deep.equal([]);
  });

  it('gives the best matches and every one tied with the last, whatever the ties read ahead', async () => {
    for (const query of ['toiture', 'travaux', 'couverture, charpente', 'zinc', 'introuvable']) {
      const all = await searchKeys(db, INDEX, parseQuery(query), { limit: 1000 });
      for (const count of [1, 2, 3, 5, 50]) {
        const boundary = all[Math.min(count, all.length) - 1]?.rank;
        const want = all.filter((h) => boundary !== undefined && h.rank >= boundary).map((h) => h.key).sort();
        for (const tiesRead of [0, 1, 1000]) {
          const got = await bestMatches(db, INDEX, parseQuery(query), count, { tiesRead });
          expect(got.map((h) => h.key).sort(), `${query} ${count} ${tiesRead}`).to.deep.equal(want);
        }
      }
    }
  });

  (usingPostgres ? it : it.skip)('ranks the matches once when the ties of the last end within those read ahead (PostgreSQL)', async () => {
    let tied = 0;
    for (const query of ['toiture', 'travaux', 'couverture, charpente', 'zinc']) {
      const parsed = parseQuery(query);
      const all = await searchKeys(db, INDEX, parsed, { limit: 1000 });
      for (let count = 1; count < all.length; count++) {
        if (all[count]?.rank !== all[count - 1]?.rank) continue;
        tied += 1;
        const statements: string[] = [];
        const listen = (q: { sql: string }) => statements.push(q.sql);
        db.on('query', listen);
        try {
          const got = await bestMatches(db, INDEX, parsed, count, { tiesRead: all.length });
          expect(got.length, `${query} ${count}`).to.be.greaterThan(count);
        } finally {
          db.off('query', listen);
        }
        expect(statements, `${query} ${count}`).to.have.length(1);
      }
    }
    expect(tied).to.be.greaterThan(0);
  });

  it('counts the matches up to a cap', async () => {
    const parsed = parseQuery('travaux, réfection, entreprise, lot, plomberie');
    const total = expected(parsed).length;
    expect(await countMatches(db, INDEX, parsed, 1000)).to.equal(total);
    expect(await countMatches(db, INDEX, parsed, total)).to.equal(total);
    expect(await countMatches(db, INDEX, parsed, 3)).to.equal(3);
    expect(await countMatches(db, INDEX, parsed, 0)).to.equal(0);
    expect(await countMatches(db, INDEX, parseQuery('introuvable'), 10)).to.equal(0);
  });

  it('replaces the document of a key, and deletes it', async () => {
    await upsertSearchDocuments(db, INDEX, [{ key: 'tmp-1', fields: { titre: 'Ravalement de façade', texte: 'Échafaudage' } }]);
    expect(await found('ravalement')).to.deep.equal(['tmp-1']);
    // The last version of a key in one batch wins; the old words no longer match.
    await upsertSearchDocuments(db, INDEX, [
      { key: 'tmp-1', fields: { titre: 'Version intermédiaire' } },
      { key: 'tmp-1', fields: { titre: 'Démolition', texte: null } },
    ]);
    expect(await found('ravalement')).to.deep.equal([]);
    expect(await found('echafaudage')).to.deep.equal([]);
    expect(await found('intermediaire')).to.deep.equal([]);
    expect(await found('démolition')).to.deep.equal(['tmp-1']);
    await deleteSearchDocuments(db, INDEX, ['tmp-1', 'inconnue']);
    expect(await found('démolition')).to.deep.equal([]);
    await deleteSearchDocuments(db, INDEX, []);
    await upsertSearchDocuments(db, INDEX, []);
  });

  it('gives a new key the place of the last one deleted without its words', async () => {
    await upsertSearchDocuments(db, INDEX, [{ key: 'tmp-3', fields: { titre: 'Tuileau mélèze' } }]);
    await deleteSearchDocuments(db, INDEX, ['tmp-3']);
    await upsertSearchDocuments(db, INDEX, [
      { key: 'tmp-4', fields: { titre: 'Lambrequin', texte: 'Tavaillons' } },
      { key: 'tmp-5', fields: { titre: 'Lambrequin', texte: 'Tavaillons' } },
    ]);
    expect(await found('tuileau')).to.deep.equal([]);
    // Two documents of the same text: the words folded once serve both.
    expect(await found('lambrequin tavaillons')).to.deep.equal(['tmp-4', 'tmp-5']);
    await deleteSearchDocuments(db, INDEX, ['tmp-4', 'tmp-5']);
    expect(await found('lambrequin')).to.deep.equal([]);
  });

  it("writes inside the caller's transaction: a rollback leaves nothing indexed", async () => {
    await db
      .transaction(async (trx) => {
        await upsertSearchDocuments(trx, INDEX, [{ key: 'tmp-2', fields: { titre: 'Photovoltaïque' } }]);
        expect((await searchKeys(trx, INDEX, parseQuery('photovoltaique'), { limit: 5 })).map((h) => h.key)).to.deep.equal(['tmp-2']);
        throw new Error('rollback');
      })
      .catch((err: Error) => expect(err.message).to.equal('rollback'));
    expect(await found('photovoltaique')).to.deep.equal([]);
  });

  it('refuses a field the index does not have', async () => {
    const wrong = upsertSearchDocuments(db, INDEX, [{ key: 'x', fields: { title: 'faute de frappe' } }]);
    await wrong.then(
      () => expect.fail('accepted'),
      (err: Error) => expect(err.message).to.match(/pas de colonne title/),
    );
  });

  const HOSTILE = [
    '"',
    "'",
    '*',
    '-',
    '%',
    '_',
    ':',
    'NEAR',
    'OR',
    'toiture OR zinc',
    'NEAR(toiture zinc)',
    'NEAR("toiture" "zinc", 2)',
    'zinc*',
    '-zinc',
    '^zinc',
    'titre:zinc',
    '{titre texte}: zinc',
    '%zinc%',
    'zin_',
    "toiture' OR '1'='1",
    'toiture" OR "zinc',
    "'; drop table demo_search; --",
    '"); delete from demo_search; --',
    'zinc & toiture | bois <-> !x',
    "'zinc':* | 'bois'",
    '\\',
    '\\"zinc\\"',
    '100 %',
    'taux_reduit',
    'near-zéro',
    'or, and, not',
    "l'",
    '\u0000zinc\u0000',
  ];
  for (const query of HOSTILE) {
    it(`answers the hostile query ${JSON.stringify(query)} as plain words, or refuses it`, async () => {
      let parsed: ParsedQuery;
      try {
        parsed = parseQuery(query);
      } catch (err) {
        expect(err).to.be.instanceOf(QuerySyntaxError);
        return;
      }
      expect(await found(query)).to.deep.equal(expected(parsed));
      expect(await countMatches(db, INDEX, parsed, 100)).to.equal(expected(parsed).length);
    });
  }

  it('still holds every document after the hostile queries', async () => {
    expect(await found('near')).to.deep.equal(['near', 'sql-ish']);
    expect(await found('or')).to.deep.equal(['or']);
    expect(await countMatches(db, INDEX, parseQuery('plomberie, travaux, toiture'), 1000)).to.equal(expected(parseQuery('plomberie, travaux, toiture')).length);
  });

  it('agrees with the reference matcher on generated queries', async () => {
    // Words, prefixes and phrases drawn from the corpus (seeded), alone and combined.
    let seed = 42;
    const random = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
    const fields = docs.map((d) => indexedWords(INDEX, d.fields)).flat().filter((w) => w.length);
    const words = [...new Set(fields.flat())];
    const term = () => {
      const r = random();
      if (r < 0.5) return pick(words);
      if (r < 0.7) return pick(words).slice(0, 3 + Math.floor(random() * 3));
      const field = pick(fields);
      const start = Math.floor(random() * field.length);
      return `"${field.slice(start, start + 2 + Math.floor(random() * 2)).join(' ')}"`;
    };
    for (let i = 0; i < 150; i++) {
      const groups = Array.from({ length: 1 + Math.floor(random() * 3) }, () => Array.from({ length: 1 + Math.floor(random() * 3) }, term).join(' '));
      const parsed = parseQuery(groups.join(', '));
      expect(await found(groups.join(', ')), groups.join(', ')).to.deep.equal(expected(parsed));
    }
  });

  describe('in a domain query', () => {
    before(async () => {
      await db.schema.createTable('demo_notices', (t) => {
        t.string('id').primary();
        t.string('departement', 3).notNullable();
        t.string('date_parution', 10).notNullable();
      });
      await db('demo_notices').insert([
        { id: 'toiture-zinc', departement: '69', date_parution: '2026-03-01' },
        { id: 'toiture-tuile', departement: '69', date_parution: '2026-03-05' },
        { id: 'etancheite', departement: '42', date_parution: '2026-03-09' },
        { id: 'zinguerie', departement: '69', date_parution: '2026-02-01' },
        { id: 'plomb-b', departement: '69', date_parution: '2026-01-01' },
        { id: 'plomb_a', departement: '69', date_parution: '2026-01-03' },
      ]);
    });

    it('joins the ranked matches, filters, and orders by rank then date', async () => {
      const parsed = parseQuery('toiture, zinc');
      const rows = (await db('demo_notices as n')
        .join(searchMatches(db, INDEX, parsed).as('m'), 'm.key', 'n.id')
        .where('n.departement', '69')
        .select('n.id', 'm.rank')
        .orderBy([
          { column: 'm.rank', order: 'desc' },
          { column: 'n.date_parution', order: 'desc' },
          { column: 'n.id', order: 'asc' },
        ])) as { id: string; rank: number }[];
      const ranked = (await searchKeys(db, INDEX, parsed, { limit: 100 })).map((h) => h.key);
      expect(rows.map((r) => r.id)).to.deep.equal(ranked.filter((k) => ['toiture-zinc', 'toiture-tuile', 'zinguerie'].includes(k)));
      expect(rows[0]?.id).to.equal('toiture-zinc');
    });

    it('orders equal ranks by date, then by key in byte order, then pages', async () => {
      await db('demo_notices').insert([
        { id: 'plombC', departement: '69', date_parution: '2026-01-01' },
        { id: 'plomba', departement: '69', date_parution: '2026-01-01' },
      ]);
      const query = db('demo_notices as n').join(searchMatches(db, INDEX, parseQuery('plomberie')).as('m'), 'm.key', 'n.id').select('n.id');
      const ordered = orderByRelevance(db, query, { rank: 'm.rank', then: [{ column: 'n.date_parution', order: 'desc' }], key: 'n.id' });
      expect(await ordered.clone().pluck('n.id')).to.deep.equal(['plomb_a', 'plomb-b', 'plombC', 'plomba']);
      expect(await ordered.clone().limit(2).offset(1).pluck('n.id')).to.deep.equal(['plomb-b', 'plombC']);
      await db('demo_notices').whereIn('id', ['plombC', 'plomba']).delete();
    });

    it('filters with whereIn on the matching keys, and orders like searchKeys', async () => {
      const rows = await db('demo_notices').whereIn('id', matchingKeys(db, INDEX, parseQuery('"zinc", etancheite'))).orderBy('id').pluck('id');
      expect(rows).to.deep.equal(['etancheite', 'toiture-zinc', 'zinguerie']);
      const ordered = await orderByRelevance(db, db.select('key', 'rank').from(searchMatches(db, INDEX, parseQuery('plomberie')).as('m'))).pluck('key');
      expect(ordered).to.deep.equal(['plomb-b', 'plombC', 'plomb_a', 'plomba']);
    });
  });

  describe('with batches', () => {
    const BULK = defineSearchIndex({ name: 'bulk_search', columns: ['nom', 'activite', 'commune'] });
    before(() => createSearchIndex(db, BULK));
    after(() => dropSearchIndex(db, BULK));

    it('indexes thousands of documents in one call, in several statements, and replaces them all', async () => {
      const make = (i: number, activite: string): SearchDocument => ({
        key: String(100000000 + i),
        fields: { nom: `Société ${i % 7 === 0 ? 'Bâtiment' : 'Rénovation'} n°${i}`, activite, commune: i % 2 ? 'Lyon' : 'Saint-Étienne' },
      });
      await upsertSearchDocuments(db, BULK, Array.from({ length: 2500 }, (_, i) => make(i, 'Travaux de maçonnerie générale')));
      expect(await countMatches(db, BULK, parseQuery('maçonnerie'), 10_000)).to.equal(2500);
      expect(await countMatches(db, BULK, parseQuery('batiment lyon'), 10_000)).to.equal(Array.from({ length: 2500 }, (_, i) => i).filter((i) => i % 7 === 0 && i % 2).length);
      // Again, unchanged: nothing moves.
      await upsertSearchDocuments(db, BULK, Array.from({ length: 2500 }, (_, i) => make(i, 'Travaux de maçonnerie générale')));
      expect(await countMatches(db, BULK, parseQuery('maçonnerie'), 10_000)).to.equal(2500);
      // One batch mixing unchanged, changed and new documents.
      await upsertSearchDocuments(db, BULK, [make(1, 'Travaux de maçonnerie générale'), make(2, 'Plâtrerie'), make(3000, 'Plâtrerie')]);
      expect((await searchKeys(db, BULK, parseQuery('platrerie'), { limit: 10 })).map((h) => h.key).sort()).to.deep.equal(['100000002', '100003000']);
      expect(await countMatches(db, BULK, parseQuery('maçonnerie'), 10_000)).to.equal(2499);
      await deleteSearchDocuments(db, BULK, ['100003000']);
      await upsertSearchDocuments(db, BULK, Array.from({ length: 2500 }, (_, i) => make(i, 'Couverture')));
      expect(await countMatches(db, BULK, parseQuery('maçonnerie'), 10_000)).to.equal(0);
      expect(await countMatches(db, BULK, parseQuery('couverture'), 10_000)).to.equal(2500);
      await deleteSearchDocuments(db, BULK, Array.from({ length: 1200 }, (_, i) => String(100000000 + i)));
      expect(await countMatches(db, BULK, parseQuery('couverture'), 10_000)).to.equal(1300);
    });

    // FTS5 writes its pending terms out as a segment at every statement journal: a batch must not cost a segment per statement.
    (usingPostgres ? it.skip : it)('writes a batch of new documents into one FTS5 segment (SQLite)', async () => {
      const BATCHED = defineSearchIndex({ name: 'segment_search', columns: ['nom'] });
      await createSearchIndex(db, BATCHED);
      try {
        await db.transaction((trx) => upsertSearchDocuments(trx, BATCHED, Array.from({ length: 1800 }, (_, i) => ({ key: `k${i}`, fields: { nom: `Entreprise ${i} bâtiment` } }))));
        const segments = (await db('segment_search_idx').countDistinct({ n: 'segid' }).first()) as { n: number };
        expect(segments.n).to.equal(1);
        expect(await countMatches(db, BATCHED, parseQuery('batiment'), 10_000)).to.equal(1800);
      } finally {
        await dropSearchIndex(db, BATCHED);
      }
    });
  });

  // PostgreSQL: the documents in a column of the records' table, matched alike.
  (usingPostgres ? describe : describe.skip)("with the documents in the records' table (PostgreSQL)", () => {
    const IN_RECORDS = defineSearchIndex({ name: 'fiche_search', columns: INDEX.columns, postgresRecords: { table: 'fiches', key: 'id' } });
    /** Every document of the corpus has its record but the last: a document without its record is not kept. */
    const recorded = docs.slice(0, -1);
    const expectedRecorded = (parsed: ParsedQuery) => expected(parsed, recorded);
    before(async () => {
      await db.schema.createTable('fiches', (t) => {
        t.string('id').primary();
        t.string('departement').notNullable();
      });
      await db('fiches').insert(recorded.map((d, i) => ({ id: d.key, departement: i % 2 ? '69' : '75' })));
      await createSearchIndex(db, IN_RECORDS);
      await upsertSearchDocuments(db, IN_RECORDS, docs);
    });

    it("keeps the documents in the records' table, and matches, ranks and counts as the reference", async () => {
      expect(searchIndexTable(db, IN_RECORDS)).to.equal('fiches');
      expect(await db.schema.hasTable('fiche_search')).to.equal(false);
      for (const query of ['electricite', 'ecole', 'travaux, peinture', 'ecol', '"ecole maternelle"']) {
        const parsed = parseQuery(query);
        const want = expectedRecorded(parsed);
        expect((await searchKeys(db, IN_RECORDS, parsed, { limit: 100 })).map((h) => h.key).sort(), query).to.deep.equal(want);
        expect(((await matchingKeys(db, IN_RECORDS, parsed)) as { key: string }[]).map((r) => r.key).sort(), query).to.deep.equal(want);
        expect(await countMatches(db, IN_RECORDS, parsed, 1000), query).to.equal(want.length);
        // The same ranks as the documents in their own table.
        expect(await searchKeys(db, IN_RECORDS, parsed, { limit: 100 }), query).to.deep.equal(await searchKeys(db, INDEX, parsed, { limit: 100 }).then((hits) => hits.filter((h) => want.includes(h.key))));
        if (want.length) expect((await bestMatches(db, IN_RECORDS, parsed, 1)).map((h) => h.key)[0]).to.equal((await searchKeys(db, IN_RECORDS, parsed, { limit: 1 }))[0]?.key);
      }
    });

    it('reads the filters and the words in one scan of the records, with the same ranks as the join', async () => {
      const parsed = parseQuery('ecole');
      const direct = matchingRecords(db, IN_RECORDS, parsed, db('fiches as f').where('f.departement', '75'), 'f');
      expect(direct).to.not.equal(undefined);
      const rows = (await direct?.records.select('f.id', direct.rank).orderBy('f.id')) as { id: string; rank: number }[];
      const joined = (await db('fiches as f')
        .where('f.departement', '75')
        .join(searchMatches(db, IN_RECORDS, parsed).as('m'), 'm.key', 'f.id')
        .select('f.id', 'm.rank')
        .orderBy('f.id')) as { id: string; rank: number }[];
      expect(rows.length).to.be.greaterThan(0);
      expect(rows).to.deep.equal(joined);
      expect(matchingRecords(db, INDEX, parsed, db('fiches as f'), 'f')).to.equal(undefined);
      expect(() => matchingRecords(db, IN_RECORDS, parsed, db('fiches as f'), 'f"; drop')).to.throw('Alias invalide');
    });

    it('replaces and deletes a document in its record, which stays; a deleted record takes its document', async () => {
      await db('fiches').insert([
        { id: 'tmp-r1', departement: '13' },
        { id: 'tmp-r2', departement: '13' },
      ]);
      await upsertSearchDocuments(db, IN_RECORDS, [
        { key: 'tmp-r1', fields: { titre: 'Ravalement de façade' } },
        { key: 'tmp-r2', fields: { titre: 'Ravalement et zinguerie' } },
      ]);
      expect(await countMatches(db, IN_RECORDS, parseQuery('ravalement'), 10)).to.equal(2);
      await upsertSearchDocuments(db, IN_RECORDS, [{ key: 'tmp-r1', fields: { titre: 'Démolition' } }]);
      expect((await searchKeys(db, IN_RECORDS, parseQuery('ravalement'), { limit: 5 })).map((h) => h.key)).to.deep.equal(['tmp-r2']);
      await deleteSearchDocuments(db, IN_RECORDS, ['tmp-r1', 'inconnue']);
      expect(await countMatches(db, IN_RECORDS, parseQuery('demolition'), 10)).to.equal(0);
      expect(await db('fiches').where('id', 'tmp-r1').first('id')).to.deep.equal({ id: 'tmp-r1' });
      await db('fiches').where('id', 'tmp-r2').delete();
      expect(await countMatches(db, IN_RECORDS, parseQuery('ravalement'), 10)).to.equal(0);
      await db('fiches').where('id', 'tmp-r1').delete();
    });

    it("drops the records' column, not the records", async () => {
      const OTHER = defineSearchIndex({ name: 'autre_search', columns: ['nom'], postgresRecords: { table: 'autres', key: 'id' } });
      await db.schema.createTable('autres', (t) => t.string('id').primary());
      await db('autres').insert({ id: 'a1' });
      await createSearchIndex(db, OTHER);
      expect(await db.schema.hasColumn('autres', 'document')).to.equal(true);
      await dropSearchIndex(db, OTHER);
      expect(await db.schema.hasColumn('autres', 'document')).to.equal(false);
      expect(await db('autres').count({ n: '*' }).first()).to.deep.equal({ n: '1' });
      await db.schema.dropTable('autres');
    });

    it("refuses a records' table or key that is not a plain name", () => {
      expect(() => defineSearchIndex({ name: 'x_search', columns: ['nom'], postgresRecords: { table: 'fiches; drop', key: 'id' } })).to.throw('table des fiches invalide');
      expect(() => defineSearchIndex({ name: 'x_search', columns: ['nom'], postgresRecords: { table: 'fiches', key: 'document' } })).to.throw('table des fiches invalide');
    });
  });

  // PostgreSQL: lists of values beside the words, narrowing the matches in the index.
  (usingPostgres ? describe : describe.skip)('with lists of values beside the words (PostgreSQL)', () => {
    const LISTED = defineSearchIndex({ name: 'liste_search', columns: INDEX.columns, postgresLists: ['departements'] });
    const departementsOf = (i: number) => (i % 3 === 0 ? ['29', '56'] : i % 3 === 1 ? ['75'] : []);
    before(async () => {
      await createSearchIndex(db, LISTED);
      await upsertSearchDocuments(
        db,
        LISTED,
        docs.map((d, i) => ({ ...d, lists: { departements: departementsOf(i) } })),
      );
    });

    it('reads the matches among the documents listing one of the values, with the same ranks', async () => {
      for (const query of ['electricite', 'ecole', 'travaux, peinture', 'ecol']) {
        const parsed = parseQuery(query);
        for (const values of [['29'], ['75'], ['56', '75'], ['13']]) {
          const want = docs.filter((d, i) => departementsOf(i).some((v) => values.includes(v)) && expected(parsed).includes(d.key)).map((d) => d.key);
          const narrowed = (await db.select('key', 'rank').from(searchMatches(db, LISTED, parsed, { narrow: { departements: values } }).as('m'))) as { key: string; rank: number }[];
          expect(narrowed.map((r) => r.key).sort(), `${query} ${values.join(',')}`).to.deep.equal(want.sort());
          const all = new Map(((await db.select('key', 'rank').from(searchMatches(db, LISTED, parsed).as('m'))) as { key: string; rank: number }[]).map((r) => [r.key, r.rank]));
          for (const r of narrowed) expect(r.rank).to.equal(all.get(r.key));
        }
      }
    });

    it('replaces a document’s list with its words, and refuses a list the index does not have', async () => {
      await upsertSearchDocuments(db, LISTED, [{ key: 'tmp-l1', fields: { titre: 'Ravalement' }, lists: { departements: ['13', '13', '2A'] } }]);
      const narrowed = async (value: string) => (await db.select('key').from(searchMatches(db, LISTED, parseQuery('ravalement'), { narrow: { departements: [value] } }).as('m'))).map((r: { key: string }) => r.key);
      expect(await narrowed('2A')).to.deep.equal(['tmp-l1']);
      expect(await db('liste_search').where('key', 'tmp-l1').first('departements')).to.deep.equal({ departements: ['13', '2A'] });
      await upsertSearchDocuments(db, LISTED, [{ key: 'tmp-l1', fields: { titre: 'Ravalement' } }]);
      expect(await narrowed('2A')).to.deep.equal([]);
      await deleteSearchDocuments(db, LISTED, ['tmp-l1']);
      const wrong = upsertSearchDocuments(db, LISTED, [{ key: 'x', fields: { titre: 'x' }, lists: { communes: ['29019'] } }]);
      await wrong.then(
        () => expect.fail('accepted'),
        (err: Error) => expect(err.message).to.equal('Index liste_search : pas de liste communes.'),
      );
      expect(() => searchMatches(db, LISTED, parseQuery('x'), { narrow: { communes: ['29019'] } })).to.throw('pas de liste communes');
      expect(() => searchMatches(db, INDEX, parseQuery('x'), { narrow: { departements: ['29'] } })).to.throw('pas de liste departements');
    });

    it('refuses lists with the documents in the records, or lists that are not plain new names', () => {
      expect(() => defineSearchIndex({ name: 'x_search', columns: ['nom'], postgresLists: ['departements'], postgresRecords: { table: 'fiches', key: 'id' } })).to.throw('des listes seulement');
      for (const lists of [[], ['nom'], ['key'], ['a', 'a'], ['Départements']]) expect(() => defineSearchIndex({ name: 'x_search', columns: ['nom'], postgresLists: lists }), JSON.stringify(lists)).to.throw('listes invalides');
    });
  });
});
