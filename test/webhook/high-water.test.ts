import * as assert from 'uvu/assert';
import type { Position } from '../../platform/eventstore/port.ts';
import { createOutboxProjection } from '../../projections/webhook/outbox-projection.ts';
import { databaseSuite, type TestDatabase } from '../support/db.ts';
import { recordingHandoff, settled, subscriptionAndEvent } from '../support/outbox-events.ts';

const test = databaseSuite('webhook: the outbox high-water mark (no history sent again)');

async function mark(db: TestDatabase): Promise<bigint> {
  return BigInt((await db.knex('webhook_outbox_state').where({ id: 1 }).first()).commit_position);
}

const setMark = (db: TestDatabase, position: Position) =>
  db.knex('webhook_outbox_state').where({ id: 1 }).update({ commit_position: position.commit.toString(), prepare_position: position.prepare.toString() });

test('the batch that inserts rows raises the mark to its last event, in the same transaction', async ({ db }) => {
  const { created, decided } = subscriptionAndEvent();
  await db.knex.transaction((trx) => createOutboxProjection().handle([created, decided], trx));
  assert.is(await mark(db), decided.position.commit);
});

test('an outbox that read the mark low finds the rows already there: none inserted twice, none handed over, the mark back where it was', async ({ db }) => {
  const { handoff, taken, released } = recordingHandoff(true);
  const { subscriptionId, created, decided } = subscriptionAndEvent();
  await db.knex.transaction((trx) => createOutboxProjection().handle([created, decided], trx));
  const before = await db.knex('webhook_deliveries').where({ subscription_id: subscriptionId }).first();

  // As if another outbox (a rebuild's) had made these rows after this one read the mark.
  await setMark(db, created.position);
  await db.knex.transaction((trx) => createOutboxProjection(handoff).handle([decided], trx));
  await settled();

  const rows = await db.knex('webhook_deliveries').where({ subscription_id: subscriptionId });
  assert.is(rows.length, 1);
  assert.is(rows[0].claim_token, before.claim_token, 'the existing row was not claimed for this outbox');
  assert.is(taken.length, 0);
  assert.is(released.length, 1, 'what it reserved is given back');
  assert.is(await mark(db), decided.position.commit);
});

test('the mark is never lowered, and events at or below it make no delivery', async ({ db }) => {
  const { subscriptionId, created, decided } = subscriptionAndEvent();
  const above = { commit: decided.position.commit + 1000n, prepare: decided.position.prepare + 1000n };
  await setMark(db, above);
  try {
    await db.knex.transaction((trx) => createOutboxProjection().handle([created, decided], trx));
    assert.is((await db.knex('webhook_deliveries').where({ subscription_id: subscriptionId })).length, 0);
    assert.is(await mark(db), above.commit);
    assert.ok(await db.knex('webhook_outbox_targets').where({ id: subscriptionId }).first(), 'the subscription is still copied');
  } finally {
    await setMark(db, decided.position);
  }
});

test.run();
