import * as assert from 'uvu/assert';
import type { Knex } from 'knex';
import { ASYNC_COMMIT } from '../../platform/database/async-commit.ts';
import { START, type RecordedEvent } from '../../platform/eventstore/port.ts';
import { LiveTarget, writeBatch } from '../../platform/projections/apply.ts';
import { newLeaseOwner, tryAcquireLease } from '../../platform/projections/leases.ts';
import type { Projection } from '../../platform/projections/projection.ts';
import { WEBHOOK_OUTBOX_PROJECTION, createOutboxProjection, deliveryIdOf } from '../../projections/webhook/outbox-projection.ts';
import { reportFacts } from '../support/webhook.ts';
import { databaseSuite, statementsDuring, type TestDatabase } from '../support/db.ts';
import { disabledEvent, hex, recorded, recordingHandoff, subscriptionAndEvent } from '../support/outbox-events.ts';

const test = databaseSuite('webhook: an outbox batch reuses what the batch before read, while it holds');

function anotherDecision(organizationId: string) {
  const reportId = hex();
  return recorded(`report-${reportId}`, 'ReportDecided', { ...reportFacts({ organizationId }, reportId) });
}

/** Runs `work` and counts the batch-start reads and the checks of a reused start (outbox-start.ts) it made. */
async function counting(db: TestDatabase, work: () => Promise<unknown>): Promise<{ starts: number; checks: number }> {
  const sent = await statementsDuring(db.knex, work);
  return { starts: sent.filter((s) => s.sql.includes("jsonb_build_object('database'")).length, checks: sent.filter((s) => s.sql.includes('fresh as (')).length };
}

/** An outbox that has folded a subscription and routed one event since: what it read is reusable. */
async function warmOutbox(db: TestDatabase) {
  const outbox = createOutboxProjection();
  const { organizationId, subscriptionId, created, decided } = subscriptionAndEvent();
  await db.knex.transaction((trx) => outbox.handle([created], trx));
  await db.knex.transaction((trx) => outbox.handle([decided], trx));
  return { outbox, organizationId, subscriptionId, decided };
}

test('the next batch of the same organizations reads nothing before its insert, and makes the same rows', async ({ db }) => {
  const { outbox, organizationId, subscriptionId, decided } = await warmOutbox(db);
  const next = anotherDecision(organizationId);
  assert.equal(await counting(db, () => db.knex.transaction((trx) => outbox.handle([next], trx))), { starts: 0, checks: 1 });
  const rows = await db.knex('webhook_deliveries').where({ subscription_id: subscriptionId }).orderBy('event_id');
  assert.equal(rows.map((row) => row.event_id).sort(), [decided.id, next.id].sort());
});

test('a subscription turned off by another outbox meanwhile: the reused start is refused and the batch routed again', async ({ db }) => {
  const { outbox, organizationId, subscriptionId } = await warmOutbox(db);

  // Another holder (a takeover, a rebuild's outbox) folds the subscription's disabling.
  const disabled = disabledEvent(subscriptionId, organizationId);
  await db.knex.transaction((trx) => createOutboxProjection().handle([disabled], trx));

  const next = anotherDecision(organizationId);
  assert.equal(await counting(db, () => db.knex.transaction((trx) => outbox.handle([next], trx))), { starts: 1, checks: 1 }, 'read again after the refused insert');
  assert.is((await db.knex('webhook_deliveries').where({ subscription_id: subscriptionId, event_id: next.id })).length, 0);
});

test("another table behind the name (a rebuild's switch) is not taken for the one read, even with the same change count", async ({ db }) => {
  const { outbox, organizationId, subscriptionId } = await warmOutbox(db);
  // The swap a rebuild makes, done by hand and without counting a change: a copy in which the
  // subscription is off takes the name.
  await db.knex.raw('create table webhook_outbox_targets_copy (like webhook_outbox_targets including all)');
  await db.knex.raw(`insert into webhook_outbox_targets_copy select * from webhook_outbox_targets`);
  await db.knex('webhook_outbox_targets_copy').where({ id: subscriptionId }).update({ status: 'disabled' });
  await db.knex.raw('alter table webhook_outbox_targets rename to webhook_outbox_targets_retired');
  await db.knex.raw('alter table webhook_outbox_targets_copy rename to webhook_outbox_targets');

  const next = anotherDecision(organizationId);
  assert.equal(await counting(db, () => db.knex.transaction((trx) => outbox.handle([next], trx))), { starts: 1, checks: 1 });
  assert.is((await db.knex('webhook_deliveries').where({ subscription_id: subscriptionId, event_id: next.id })).length, 0);
});

test('a batch that rolls back leaves nothing to reuse', async ({ db }) => {
  const { outbox, organizationId } = await warmOutbox(db);
  const lost = anotherDecision(organizationId);
  await db.knex
    .transaction(async (trx) => {
      await outbox.handle([lost], trx);
      throw new Error('the checkpoint could not be saved');
    })
    .catch(() => undefined);
  const next = anotherDecision(organizationId);
  assert.equal(await counting(db, () => db.knex.transaction((trx) => outbox.handle([next], trx))), { starts: 1, checks: 0 });
});

/**
 * The outbox as the runner drives it, with a dispatcher that takes every row: after a batch that
 * changes the subscriptions (a transaction) and one that routes an event (a transaction that
 * leaves its start to reuse), the next one can go in one statement.
 */
async function runnerWarmOutbox(db: Knex) {
  // The suite's tests share a database: each starts the runner's bookkeeping afresh.
  await db('projection_leases').where({ name: WEBHOOK_OUTBOX_PROJECTION }).del();
  await db('projection_checkpoints').where({ name: WEBHOOK_OUTBOX_PROJECTION }).del();
  const lease = (await tryAcquireLease(db, WEBHOOK_OUTBOX_PROJECTION, newLeaseOwner(), 60_000))!;
  const target = new LiveTarget(WEBHOOK_OUTBOX_PROJECTION, lease, START);
  const dispatcher = recordingHandoff(true);
  const outbox = createOutboxProjection(dispatcher.handoff);
  const write = (events: RecordedEvent[], projection: Projection = outbox) => writeBatch(db, { streamUpTo: async () => [] }, projection, target, events, events.at(-1)!.position);
  const { organizationId, subscriptionId, created, decided } = subscriptionAndEvent();
  await write([created]);
  await write([decided]);
  return { write, dispatcher, organizationId, subscriptionId };
}

test('through the runner, a batch that can reuse its start goes in one statement with the checkpoint, and its rows to the dispatcher', async ({ db }) => {
  const { write, dispatcher, organizationId, subscriptionId } = await runnerWarmOutbox(db.knex);
  const next = anotherDecision(organizationId);
  const sent = (await statementsDuring(db.knex, () => write([next]))).map((s) => s.sql);
  assert.is(sent.length, 1, `one statement: ${sent.join(' | ')}`);
  assert.ok(sent[0]!.includes('fence as (') && sent[0]!.includes('fresh as ('), 'fenced, and the reused start checked');
  assert.ok(sent[0]!.includes(ASYNC_COMMIT) && sent[0]!.trimEnd().endsWith('from async_commit'), 'committed without waiting for its WAL flush');
  const id = deliveryIdOf(subscriptionId, next.id);
  assert.ok(await db.knex('webhook_deliveries').where({ id }).first(), 'the row was written');
  assert.ok(
    dispatcher.taken.some((row) => row.id === id),
    'and handed to the dispatcher',
  );
  const checkpoint = await db.knex('projection_checkpoints').where({ name: WEBHOOK_OUTBOX_PROJECTION }).first();
  assert.is(checkpoint.commit_position, next.position.commit.toString());
});

test('through the runner, a batch of more rows than one insert takes goes through handle() in a transaction', async ({ db }) => {
  const { write, dispatcher, organizationId, subscriptionId } = await runnerWarmOutbox(db.knex);
  const backlog = Array.from({ length: 501 }, () => anotherDecision(organizationId));
  const sent = (await statementsDuring(db.knex, () => write(backlog))).map((s) => s.sql);
  assert.ok(sent.includes('BEGIN;') && !sent.some((sql) => sql.includes('fence as (')), 'a transaction, no fenced statement');
  assert.not.ok(
    sent.some((sql) => sql.includes('async_commit')),
    'committed durably: a transaction may carry a disable whose reply promises no attempt after it',
  );
  const ids = backlog.map((event) => deliveryIdOf(subscriptionId, event.id));
  assert.is((await db.knex('webhook_deliveries').whereIn('id', ids)).length, 501);
  assert.is(dispatcher.taken.filter((row) => ids.includes(row.id)).length, 501, 'all handed over once committed');
  assert.is(dispatcher.released.filter((row) => ids.includes(row.id)).length, 0, 'declined before any row was built or reserved');
});

test('through the runner, a reused start another outbox made stale: the statement writes nothing and handle() routes the batch as the log says', async ({ db }) => {
  const { write, dispatcher, organizationId, subscriptionId } = await runnerWarmOutbox(db.knex);
  await db.knex.transaction((trx) => createOutboxProjection().handle([disabledEvent(subscriptionId, organizationId)], trx));
  const next = anotherDecision(organizationId);
  await write([next]);
  const id = deliveryIdOf(subscriptionId, next.id);
  assert.not.ok(await db.knex('webhook_deliveries').where({ id }).first(), 'no row for a subscription that is off');
  assert.not.ok(
    dispatcher.taken.some((row) => row.id === id),
    'nothing handed over',
  );
  assert.ok(
    dispatcher.released.some((row) => row.id === id),
    'the row reserved for the refused statement was given back',
  );
  const checkpoint = await db.knex('projection_checkpoints').where({ name: WEBHOOK_OUTBOX_PROJECTION }).first();
  assert.is(checkpoint.commit_position, next.position.commit.toString());
});

test.run();
