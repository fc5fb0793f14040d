import type { Migration } from '../../platform/database/migrate.ts';

export const reportOpinionMigrations: Migration[] = [
  {
    name: '202611271020_report_section_opinions',
    async up(knex) {
      // The AI opinion of each section (docs/committee.md): the columns the report shows, and the whole record for insights.
      await knex.schema.alterTable('report_sections', (t) => {
        t.text('parecer_status');
        t.double('parecer_score');
        t.text('parecer_risk_level');
        t.jsonb('parecer');
      });
      await knex.schema.alterTable('report_reports', (t) => {
        t.boolean('parecer_enabled').notNullable().defaultTo(false);
      });
    },
    async down(knex) {
      await knex.schema.alterTable('report_reports', (t) => t.dropColumn('parecer_enabled'));
      await knex.schema.alterTable('report_sections', (t) => {
        t.dropColumn('parecer');
        t.dropColumn('parecer_risk_level');
        t.dropColumn('parecer_score');
        t.dropColumn('parecer_status');
      });
    },
  },
];
