import type { Knex } from 'knex';
import type { Migration } from '../../platform/database/migrate.ts';
import { BODY_OF_DELIVERY, DELIVERY_BODY } from './bodies.ts';

const id = 24; // ObjectId length

/**
 * Subscriptions as of a position. Two tables share this shape: the read model the routes use
 * (projector role) and the outbox's own copy (dispatcher role), which is exactly as far as the
 * outbox has got, so an event is matched against the subscriptions that existed when it happened.
 */
function subscriptionTable(knex: Knex, name: string) {
  return knex.schema.createTable(name, (t) => {
    t.string('id', id).primary();
    t.string('organization_id', id).notNullable().index();
    t.text('family').notNullable();
    t.text('legacy_type');
    t.text('url').notNullable();
    t.text('api_key');
    t.jsonb('events').notNullable().defaultTo('[]');
    t.text('description');
    t.text('sealed_secret');
    t.text('previous_sealed_secret');
    t.timestamp('previous_secret_expires_at', { useTz: true });
    t.text('status').notNullable();
    t.text('disabled_reason');
    t.timestamp('disabled_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('updated_at', { useTz: true }).notNullable();
  });
}

export const webhookMigrations: Migration[] = [
  {
    name: '202611240000_webhook_tables',
    async up(knex) {
      await subscriptionTable(knex, 'webhook_subscriptions');
      await subscriptionTable(knex, 'webhook_outbox_targets');

      // Not part of any projection's tables: a rebuild must neither empty nor refill them.
      await knex.schema.createTable('webhook_deliveries', (t) => {
        t.string('id', id).primary();
        t.string('subscription_id', id).notNullable();
        t.string('organization_id', id).notNullable();
        /** The store's event id; `ping:<uuid>` for the test button. */
        t.text('event_id').notNullable();
        /** Public name (named family) or legacy type. */
        t.text('event_name').notNullable();
        t.text('family').notNullable();
        /** Serialized once: every attempt sends these exact bytes. */
        t.text('body').notNullable();
        t.timestamp('occurred_at', { useTz: true }).notNullable();
        t.text('status').notNullable().defaultTo('pending');
        t.integer('attempts').notNullable().defaultTo(0);
        /** attempts made before the current retry schedule began (a manual redelivery starts a new one). */
        t.integer('schedule_start').notNullable().defaultTo(0);
        t.timestamp('next_attempt_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
        t.uuid('claim_token');
        t.integer('last_status_code');
        t.text('last_error');
        t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
        t.timestamp('completed_at', { useTz: true });
        t.unique(['subscription_id', 'event_id']);
        t.index(['subscription_id', 'created_at']);
      });
      await knex.raw(`create index webhook_deliveries_due on webhook_deliveries (next_attempt_at) where status = 'pending'`);

      await knex.schema.createTable('webhook_delivery_attempts', (t) => {
        t.bigIncrements('id');
        t.string('delivery_id', id).notNullable().index();
        t.string('subscription_id', id).notNullable();
        t.integer('attempt').notNullable();
        t.timestamp('started_at', { useTz: true }).notNullable();
        t.integer('duration_ms').notNullable();
        t.integer('status_code');
        /** 'succeeded' or the failure kind (http, redirect, timeout, network, refused). */
        t.text('outcome').notNullable();
        t.text('error');
        t.index(['subscription_id', 'started_at']);
      });

      await knex.schema.createTable('webhook_health', (t) => {
        t.string('subscription_id', id).primary();
        t.integer('consecutive_failures').notNullable().defaultTo(0);
        t.timestamp('last_failure_at', { useTz: true });
      });

      /** The furthest event the outbox ever turned into deliveries; replays below it create none. */
      await knex.schema.createTable('webhook_outbox_state', (t) => {
        t.integer('id').primary();
        t.decimal('commit_position', 20, 0).notNullable().defaultTo(0);
        t.decimal('prepare_position', 20, 0).notNullable().defaultTo(0);
      });
      await knex('webhook_outbox_state').insert({ id: 1 });
    },
    async down(knex) {
      for (const table of ['webhook_outbox_state', 'webhook_health', 'webhook_delivery_attempts', 'webhook_deliveries', 'webhook_outbox_targets', 'webhook_subscriptions']) {
        await knex.schema.dropTableIfExists(table);
      }
    },
  },
  {
    // Named after 202611240000_webhook_tables, which it alters: migrations run in name order.
    name: '202611240001_webhook_subscription_version',
    async up(knex) {
      // The stream revision of the last event folded into the row: an event at or below it has
      // been applied already (a parked batch retried) and is skipped. Null: not known, apply.
      for (const table of ['webhook_subscriptions', 'webhook_outbox_targets']) {
        await knex.schema.alterTable(table, (t) => t.bigInteger('version'));
      }
    },
    async down(knex) {
      for (const table of ['webhook_subscriptions', 'webhook_outbox_targets']) {
        await knex.schema.alterTable(table, (t) => t.dropColumn('version'));
      }
    },
  },
  {
    // A delivery's id is a hash of (subscription_id, event_id) (deliveryIdOf): the primary key
    // already makes that pair unique. The second unique index cost each insert and each attempt's
    // update (not HOT: status is in the due index) one more index entry: about a fifth of the
    // outbox's insert time in a burst.
    name: '202611291200_webhook_deliveries_drop_pair_unique',
    async up(knex) {
      await knex.raw('alter table webhook_deliveries drop constraint if exists webhook_deliveries_subscription_id_event_id_unique');
    },
    async down(knex) {
      await knex.schema.alterTable('webhook_deliveries', (t) => t.unique(['subscription_id', 'event_id']));
    },
  },
  {
    // Bodies kept once per event (bodies.ts) instead of once per delivery: rows written before
    // keep theirs in webhook_deliveries.body, new ones leave it null.
    name: '202611291300_webhook_delivery_bodies',
    async up(knex) {
      await knex.schema.createTable('webhook_delivery_bodies', (t) => {
        t.text('event_id').notNullable();
        /** 'named' (the envelope without its id) or the legacy type (the whole body). */
        t.text('kind').notNullable();
        t.text('body').notNullable();
        t.primary(['event_id', 'kind']);
      });
      await knex.schema.alterTable('webhook_deliveries', (t) => t.text('body').nullable().alter());
    },
    async down(knex) {
      await knex.raw(`update webhook_deliveries d set body = ${DELIVERY_BODY} from webhook_delivery_bodies b where d.body is null and ${BODY_OF_DELIVERY}`);
      await knex.schema.alterTable('webhook_deliveries', (t) => t.text('body').notNullable().alter());
      await knex.schema.dropTable('webhook_delivery_bodies');
    },
  },
  {
    // Counts the outbox's changes to its copy of the subscriptions, whoever made them (this
    // outbox, one that took over, a rebuild's): an outbox reuses the copy it read for the next
    // batch only while the count has not moved (BatchStart in outbox-start.ts).
    name: '202611291500_webhook_outbox_targets_version',
    async up(knex) {
      await knex.schema.alterTable('webhook_outbox_state', (t) => t.bigInteger('targets_version').notNullable().defaultTo(0));
    },
    async down(knex) {
      await knex.schema.alterTable('webhook_outbox_state', (t) => t.dropColumn('targets_version'));
    },
  },
  {
    // No query reads the attempts by (subscription_id, started_at): the log is read by delivery
    // and pruned by age. The btree cost every attempt written one more index entry, the hottest
    // write of a burst (its results statement took twice the outbox's time in PostgreSQL). The
    // pruning's `started_at < cutoff` gets a BRIN index instead: attempts are written in roughly
    // the order they start, so a few ranges hold the old ones, for a fraction of the upkeep.
    name: '202611291700_webhook_attempts_started_at_brin',
    async up(knex) {
      await knex.raw('drop index if exists webhook_delivery_attempts_subscription_id_started_at_index');
      await knex.raw('create index webhook_delivery_attempts_started_at on webhook_delivery_attempts using brin (started_at) with (autosummarize = on)');
    },
    async down(knex) {
      await knex.raw('drop index if exists webhook_delivery_attempts_started_at');
      await knex.schema.alterTable('webhook_delivery_attempts', (t) => t.index(['subscription_id', 'started_at']));
    },
  },
];
