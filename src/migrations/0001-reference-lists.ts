// Reference lists: alert sources, regions, departments, NAF section F, CPV division 45.
// Seeded here so every database carries the same lists the operations read.
import type { Knex } from 'knex';
import { ALERT_SOURCES, CPV_DIVISION_45, DEPARTEMENTS, NAF_SECTION_F, REGIONS } from '../domains/reference/lists.js';
import { foldText } from '../platform/search/text-fold.js';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('ref_alert_sources', (t) => {
    t.string('code', 40).primary();
    t.integer('position').notNullable();
    t.string('libelle', 200).notNullable();
    t.text('surveille').notNullable();
    t.boolean('departements_requis').notNullable();
    t.boolean('terme_applique').notNullable();
  });
  await knex.schema.createTable('ref_regions', (t) => {
    t.string('code', 3).primary();
    t.string('nom', 100).notNullable();
  });
  await knex.schema.createTable('ref_departements', (t) => {
    t.string('code', 3).primary();
    t.string('nom', 100).notNullable();
    t.string('nom_plie', 100).notNullable();
    t.string('region_code', 3).nullable().references('code').inTable('ref_regions');
    t.boolean('outre_mer').notNullable();
  });
  await knex.schema.createTable('ref_naf', (t) => {
    t.string('code', 6).primary();
    t.string('libelle', 300).notNullable();
    t.string('libelle_plie', 300).notNullable();
    t.string('division', 2).notNullable();
    t.string('groupe', 4).notNullable();
  });
  await knex.schema.createTable('ref_cpv', (t) => {
    t.string('code', 10).primary();
    t.string('libelle', 400).notNullable();
    t.string('libelle_plie', 400).notNullable();
    t.integer('niveau').notNullable();
    t.string('parent', 10).nullable();
  });

  await knex('ref_alert_sources').insert(ALERT_SOURCES.map((s, position) => ({ ...s, position })));
  await knex('ref_regions').insert(REGIONS.map((r) => ({ code: r.code, nom: r.nom })));
  const regionCodes = new Set(REGIONS.map((r) => r.code));
  await knex('ref_departements').insert(
    DEPARTEMENTS.map((d) => ({
      code: d.code,
      nom: d.nom,
      nom_plie: foldText(d.nom),
      region_code: regionCodes.has(d.region) ? d.region : null,
      outre_mer: d.outre_mer,
    })),
  );
  await knex('ref_naf').insert(NAF_SECTION_F.map((n) => ({ ...n, libelle_plie: foldText(n.libelle) })));
  await knex('ref_cpv').insert(CPV_DIVISION_45.map((c) => ({ ...c, libelle_plie: foldText(c.libelle) })));
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['ref_cpv', 'ref_naf', 'ref_departements', 'ref_regions', 'ref_alert_sources']) await knex.schema.dropTableIfExists(table);
}
