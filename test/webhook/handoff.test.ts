import * as assert from 'uvu/assert';
import { Backlog } from '../../application/webhook/backlog.ts';
import { HeldRows } from '../../application/webhook/held-rows.ts';
import { claimDue } from '../../application/webhook/delivery-store.ts';
import { namedBody } from '../../domain/webhook/routing.ts';
import { deliveryBodies } from '../../projections/webhook/bodies.ts';
import type { ClaimedDelivery } from '../../projections/webhook/handoff.ts';
import { createOutboxProjection } from '../../projections/webhook/outbox-projection.ts';
import { databaseSuite } from '../support/db.ts';
import { disabledEvent, recordingHandoff, settled, subscriptionAndEvent } from '../support/outbox-events.ts';

const test = databaseSuite('webhook: the outbox hands new rows to the local dispatcher');

test('a row the dispatcher takes is inserted claimed with its lease, and handed over once committed', async ({ db }) => {
  const { handoff, taken, released, queued } = recordingHandoff(true);
  const { subscriptionId, created, decided } = subscriptionAndEvent();
  await db.knex.transaction((trx) => createOutboxProjection(handoff).handle([created, decided], trx));
  await settled();

  const row = await db.knex('webhook_deliveries').where({ subscription_id: subscriptionId }).first();
  assert.is(row.status, 'pending');
  assert.ok(row.claim_token, 'claimed at insert');
  const { rows } = await db.knex.raw(`select next_attempt_at > now() + interval '50 seconds' as leased from webhook_deliveries where id = ?`, [row.id]);
  assert.ok(rows[0].leased, 'not due for claims until the lease ends');
  assert.is(taken.length, 1);
  assert.is(released.length, 0);
  assert.equal(
    { id: taken[0]!.id, token: taken[0]!.claim_token, url: taken[0]!.url, secret: taken[0]!.sealed_secret, body: taken[0]!.body, attempts: taken[0]!.attempts },
    { id: row.id, token: row.claim_token, url: 'https://hooks.example.com/in', secret: 'v2.k1.sealed', body: (await deliveryBodies(db.knex, [row.id])).get(row.id), attempts: 0 },
  );
  assert.is(row.body, null, 'the body is kept once for the event, not in the row');
  assert.is(queued.count, 0, 'nothing left pending: no claim asked for');
});

test('a batch that rolls back hands nothing over and releases what it reserved', async ({ db }) => {
  const { handoff, taken, released } = recordingHandoff(true);
  const { subscriptionId, created, decided } = subscriptionAndEvent();
  const failed = await db.knex
    .transaction(async (trx) => {
      await createOutboxProjection(handoff).handle([created, decided], trx);
      throw new Error('the checkpoint could not be saved');
    })
    .then(
      () => false,
      () => true,
    );
  await settled();
  assert.ok(failed);
  assert.is(taken.length, 0);
  assert.is(released.length, 1);
  assert.is((await db.knex('webhook_deliveries').where({ subscription_id: subscriptionId })).length, 0);
});

test('rows the dispatcher does not take stay pending, due for any claim, and it is told to claim them once committed', async ({ db }) => {
  const { handoff, taken, queued } = recordingHandoff(false);
  const { subscriptionId, created, decided } = subscriptionAndEvent();
  await db.knex.transaction(async (trx) => {
    await createOutboxProjection(handoff).handle([created, decided], trx);
    await settled();
    assert.is(queued.count, 0, 'not before the commit');
  });
  await settled();
  assert.is(queued.count, 1);
  const row = await db.knex('webhook_deliveries').where({ subscription_id: subscriptionId }).first();
  assert.is(row.claim_token, null);
  assert.ok(row.next_attempt_at.getTime() <= Date.now() + 1000);
  assert.is(taken.length, 0);

  // A claim reads the body kept once for the event, with the delivery's id spliced in: the
  // envelope exactly as the outbox serialized it, id first.
  const [claimed] = await claimDue(db.knex, 10, 60_000, { perOrganization: 10, queued: new Map() });
  const envelope = JSON.parse(claimed!.body);
  assert.is(envelope.id, row.id);
  assert.is(claimed!.body, namedBody(envelope));
});

test('a subscription disabled later in the same batch: its rows are canceled, not handed over, and those held are dropped', async ({ db }) => {
  const { handoff, taken, released, changed } = recordingHandoff(true);
  const { subscriptionId, organizationId, created, decided } = subscriptionAndEvent();
  const disabled = disabledEvent(subscriptionId, organizationId);
  await db.knex.transaction((trx) => createOutboxProjection(handoff).handle([created, decided, disabled], trx));
  await settled();
  const row = await db.knex('webhook_deliveries').where({ subscription_id: subscriptionId }).first();
  assert.is(row.status, 'canceled');
  assert.is(taken.length, 0);
  assert.is(released.length, 1);
  assert.equal(changed, [subscriptionId], 'rows of it the dispatcher already holds are not sent from memory');
});

test('backlog: new rows are handed over only for organizations with no older row left in the table', () => {
  const backlog = new Backlog();
  assert.ok(backlog.has('a'), 'at start-up nothing is known');
  backlog.drained(['a']);
  assert.ok(backlog.has('a'), 'skipped by the claim that found nothing: may still have rows');
  assert.not.ok(backlog.has('b'));
  backlog.add('b');
  assert.ok(backlog.has('b'));
  backlog.drained([]);
  assert.not.ok(backlog.has('a'));
  assert.not.ok(backlog.has('b'));
});

test("held rows: none is sent with too little lease left, and a changed subscription's rows are not sent from memory", () => {
  const row = (id: string, subscription_id: string) => ({ id, subscription_id, organization_id: 'org' }) as ClaimedDelivery;
  const held = new HeldRows(35_000, 15_000, 64);
  const now = Date.now();
  held.hold([row('old', 's1')], now - 25_000, false);
  held.hold([row('fresh', 's1'), row('other', 's2')], now, false);
  assert.is(held.next(() => true, now)?.row.id, 'fresh', 'the row with 10 s of lease left is skipped');
  assert.not.ok(held.reserve('org'), 'and its organization gets no hand-off until a claim finds none of its rows');
  held.drop(new Set(['s2']));
  assert.is(held.size, 0);
  assert.is(held.queued.size, 0);
});

test.run();
