import type { Migration } from '../../platform/database/migrate.ts';
import { IDENTITY_CHANGED_CHANNEL } from './queries.ts';

const id = 24; // ObjectId length

const IDENTITY_TABLES = ['identity_sessions', 'identity_credentials', 'identity_users', 'identity_organizations'];

export const identityMigrations: Migration[] = [
  {
    name: '202611230000_identity_read_tables',
    async up(knex) {
      await knex.schema.createTable('identity_organizations', (t) => {
        t.string('id', id).primary();
        t.text('name').notNullable();
        t.specificType('modules', 'text[]').notNullable();
        t.jsonb('flags').notNullable().defaultTo('{}');
        t.timestamp('created_at', { useTz: true }).notNullable();
        t.timestamp('updated_at', { useTz: true }).notNullable();
      });
      await knex.schema.createTable('identity_users', (t) => {
        t.string('id', id).primary();
        t.string('organization_id', id).notNullable().index();
        t.text('name').notNullable();
        t.specificType('permissions', 'text[]').notNullable();
        t.timestamp('created_at', { useTz: true }).notNullable();
        t.timestamp('updated_at', { useTz: true }).notNullable();
      });
      await knex.schema.createTable('identity_credentials', (t) => {
        t.string('id', id).primary();
        t.text('client_id').notNullable().unique();
        t.string('user_id', id).notNullable().index();
        t.string('organization_id', id).notNullable().index();
        t.text('secret_hash').notNullable();
        t.timestamp('created_at', { useTz: true }).notNullable();
        t.timestamp('revoked_at', { useTz: true });
      });
      await knex.schema.createTable('identity_sessions', (t) => {
        t.string('id', id).primary();
        t.string('user_id', id).notNullable().index();
        t.string('organization_id', id).notNullable();
        t.string('credential_id', id).notNullable().index();
        t.timestamp('created_at', { useTz: true }).notNullable();
        t.timestamp('expires_at', { useTz: true }).notNullable();
        t.timestamp('logged_out_at', { useTz: true });
        t.timestamp('updated_at', { useTz: true }).notNullable();
      });
    },
    async down(knex) {
      for (const table of ['identity_sessions', 'identity_credentials', 'identity_users', 'identity_organizations']) await knex.schema.dropTable(table);
    },
  },
  {
    // Counters of rate-limiter-flexible (request limits and failed-secret lockouts), shared by
    // every process. Columns are the ones the library creates itself; we create the table here
    // so no request ever races the library's lazy CREATE TABLE.
    name: '202611230001_identity_rate_limits',
    async up(knex) {
      await knex.schema.createTable('identity_rate_limits', (t) => {
        t.string('key', 255).primary();
        t.integer('points').notNullable().defaultTo(0);
        t.bigInteger('expire').index();
      });
    },
    async down(knex) {
      await knex.schema.dropTable('identity_rate_limits');
    },
  },
  {
    // For the session caches of the API processes (application/identity/authenticator.ts). Row
    // triggers compare old and new, so the projection's idempotent upserts (a new session, a
    // replay) say nothing; a changed session names itself, anything wider clears every cache.
    name: '202611230002_identity_change_notices',
    async up(knex) {
      await knex.raw(`
        create function identity_notify_change() returns trigger language plpgsql as $$
        begin
          if tg_level = 'ROW' and tg_table_name = 'identity_sessions' and tg_op = 'UPDATE' then
            perform pg_notify('${IDENTITY_CHANGED_CHANNEL}', new.id);
          else
            perform pg_notify('${IDENTITY_CHANGED_CHANNEL}', '');
          end if;
          return null;
        end $$`);
      for (const table of IDENTITY_TABLES) {
        await knex.raw(`
          create trigger ${table}_changed after update on ${table}
            for each row when (old is distinct from new) execute function identity_notify_change()`);
        await knex.raw(`
          create trigger ${table}_removed after delete or truncate on ${table}
            for each statement execute function identity_notify_change()`);
      }
    },
    async down(knex) {
      for (const table of IDENTITY_TABLES) {
        await knex.raw(`drop trigger if exists ${table}_changed on ${table}`);
        await knex.raw(`drop trigger if exists ${table}_removed on ${table}`);
      }
      await knex.raw('drop function if exists identity_notify_change()');
    },
  },
  {
    // Not unique here: the email-<hash> streams keep addresses unique, and a read table that
    // refused a row would stall the projection instead.
    name: '202611291000_identity_user_email',
    async up(knex) {
      await knex.schema.alterTable('identity_users', (t) => {
        t.text('email').nullable().index();
      });
    },
    async down(knex) {
      await knex.schema.alterTable('identity_users', (t) => {
        t.dropColumn('email');
      });
    },
  },
  {
    // The console's login: a user's password hash, and sessions begun with it (no credential).
    name: '202611291020_identity_console_login',
    async up(knex) {
      await knex.schema.alterTable('identity_users', (t) => {
        t.text('password_hash').nullable();
      });
      await knex.schema.alterTable('identity_sessions', (t) => {
        t.string('credential_id', id).nullable().alter();
      });
    },
    async down(knex) {
      await knex('identity_sessions').whereNull('credential_id').delete();
      await knex.schema.alterTable('identity_sessions', (t) => {
        t.string('credential_id', id).notNullable().alter();
      });
      await knex.schema.alterTable('identity_users', (t) => {
        t.dropColumn('password_hash');
      });
    },
  },
];
