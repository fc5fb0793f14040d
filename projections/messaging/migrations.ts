import type { Migration } from '../../platform/database/migrate.ts';

export const messagingMigrations: Migration[] = [
  {
    name: '202611231620_messaging_tables',
    async up(knex) {
      // Status of each message (projection `messaging`). No names or addresses: those stay in the
      // sealed events (docs/personal-data.md), so an erasure has nothing to clean here.
      await knex.schema.createTable('messaging_messages', (t) => {
        t.text('id').primary();
        t.text('organization_id').notNullable();
        t.text('collection_id').notNullable();
        t.text('recipient_id').notNullable();
        t.text('template').notNullable();
        t.jsonb('channels').notNullable();
        t.text('status').notNullable();
        t.jsonb('sent_channels').notNullable().defaultTo('[]');
        t.jsonb('delivered_channels').notNullable().defaultTo('[]');
        t.text('error');
        t.timestamp('queued_at', { useTz: true }).notNullable();
        t.timestamp('updated_at', { useTz: true }).notNullable();
        t.index(['organization_id', 'collection_id']);
      });
      // The dispatcher's queue (projection `messaging-deliveries`, dispatcher role): one row per
      // message and channel, claimed with SKIP LOCKED leases.
      await knex.schema.createTable('messaging_deliveries', (t) => {
        t.text('message_id').notNullable();
        t.text('channel').notNullable();
        t.text('organization_id').notNullable();
        t.text('status').notNullable();
        t.integer('attempts').notNullable().defaultTo(0);
        t.timestamp('next_attempt_at', { useTz: true }).notNullable();
        t.uuid('claim_token');
        t.text('last_error');
        t.timestamp('created_at', { useTz: true }).notNullable();
        t.timestamp('completed_at', { useTz: true });
        t.primary(['message_id', 'channel']);
      });
      await knex.raw(`create index messaging_deliveries_due on messaging_deliveries (next_attempt_at) where status = 'pending'`);
      // What the embedded e-mail channel and the WhatsApp sandbox "sent": nothing leaves the machine.
      await knex.schema.createTable('messaging_outbox', (t) => {
        t.text('message_id').notNullable();
        t.text('channel').notNullable();
        t.text('to').notNullable();
        t.text('subject').notNullable();
        t.text('text').notNullable();
        t.text('html');
        t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
        t.primary(['message_id', 'channel']);
      });
    },
    async down(knex) {
      await knex.schema.dropTable('messaging_outbox');
      await knex.schema.dropTable('messaging_deliveries');
      await knex.schema.dropTable('messaging_messages');
    },
  },
  {
    name: '202611231621_messaging_collection_schedule',
    async up(knex) {
      // Written by the collection notification process (application/collection/notifications):
      // each sent, open collection with its next reminder and its deadline, so the scheduler's
      // jobs look only at what is due instead of folding every collection.
      await knex.schema.createTable('messaging_collection_schedule', (t) => {
        t.text('collection_id').primary();
        t.text('organization_id').notNullable();
        t.timestamp('sent_at', { useTz: true }).notNullable();
        t.timestamp('expires_at', { useTz: true }).notNullable().index();
        t.jsonb('reminder_days').notNullable();
        t.timestamp('next_reminder_at', { useTz: true }).index();
      });
    },
    async down(knex) {
      await knex.schema.dropTable('messaging_collection_schedule');
    },
  },
  {
    // Messages to platform users (a financial statements notice) belong to no collection.
    name: '202611291010_messaging_user_notices',
    async up(knex) {
      await knex.schema.alterTable('messaging_messages', (t) => {
        t.text('collection_id').nullable().alter();
        t.text('recipient_id').nullable().alter();
        t.text('user_id').nullable();
      });
    },
    async down(knex) {
      await knex('messaging_messages').whereNull('collection_id').delete();
      await knex.schema.alterTable('messaging_messages', (t) => {
        t.dropColumn('user_id');
        t.text('collection_id').notNullable().alter();
        t.text('recipient_id').notNullable().alter();
      });
    },
  },
  {
    // WhatsApp's read receipts, and the customer window: when each WhatsApp contact last wrote to
    // the business number (application/messaging/whatsapp-window.ts). The contact is kept as a
    // keyed hash of the number, never the number, and nothing of what they wrote.
    name: '202612010100_messaging_whatsapp_window',
    async up(knex) {
      await knex.schema.alterTable('messaging_messages', (t) => {
        t.jsonb('read_channels').notNullable().defaultTo('[]');
      });
      await knex.schema.createTable('messaging_whatsapp_contacts', (t) => {
        t.text('contact_hash').primary();
        t.timestamp('last_inbound_at', { useTz: true }).notNullable().index();
      });
    },
    async down(knex) {
      await knex.schema.dropTable('messaging_whatsapp_contacts');
      await knex.schema.alterTable('messaging_messages', (t) => {
        t.dropColumn('read_channels');
      });
    },
  },
];
