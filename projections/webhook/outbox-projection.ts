import { createHash, randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { ASYNC_COMMIT } from '../../platform/database/async-commit.ts';
import { comparePositions, type Position, type RecordedEvent } from '../../platform/eventstore/port.ts';
import { WEBHOOK_EVENT_TYPES } from '../../domain/webhook/events.ts';
import { ROUTED_STORED_TYPES, fillNamedBody, legacyBody, namedBodyTemplate, routeEvent, targetWants, type RoutedEvent } from '../../domain/webhook/routing.ts';
import type { Fence, Projection } from '../../platform/projections/projection.ts';
import { insertKeptBodies, keptBodies, type KeptBody } from './bodies.ts';
import type { ClaimedDelivery, DeliveryHandoff } from './handoff.ts';
import { activeTargets, batchStart, countTargetsChange, freshCheck, raiseHighWater, type BatchStart, type Targets } from './outbox-start.ts';
import { applySubscriptionEvent, type SubscriptionRow } from './subscription-rows.ts';

export const WEBHOOK_OUTBOX_PROJECTION = 'webhook-outbox';

const INSERT_CHUNK = 500;
const webhookTypes = new Set(WEBHOOK_EVENT_TYPES);

/**
 * The delivery id, and the envelope id a receiver deduplicates by: derived from subscription and
 * event, so whoever creates the row (the outbox, a replay, a second outbox after a crash) names
 * it the same, and a retry or a replay carries the same id.
 */
export function deliveryIdOf(subscriptionId: string, eventId: string): string {
  return createHash('sha256').update(`${subscriptionId}:${eventId}`).digest('hex').slice(0, 24);
}

export interface DeliveryInsert {
  id: string;
  subscription_id: string;
  organization_id: string;
  event_id: string;
  event_name: string;
  family: 'legacy' | 'named';
  body: string;
  occurred_at: string;
}

type DeliveryTarget = Pick<SubscriptionRow, 'id' | 'family' | 'legacy_type'>;

/** A delivery whose body is kept once per event (bodies.ts): `body` is what is sent, `kept` what is stored. */
export type SharedBodyDelivery = DeliveryInsert & { kept: KeptBody };

/**
 * The rows the subscriptions of `organizationId` get for one routed event of that organization,
 * one call per subscription. Shared by the outbox and replays, which only ever pick subscriptions
 * of the event's own organization: so the named envelope, serialized once for them all, is one
 * per event, as the kept body is (keyed by event).
 */
export function deliveriesFor(event: RecordedEvent, routed: RoutedEvent, organizationId: string): (target: DeliveryTarget) => SharedBodyDelivery {
  const occurredAt = event.createdAt.toISOString();
  let template: string | undefined;
  const delivery = (target: DeliveryTarget, id: string, eventName: string, body: string, kept: KeptBody): SharedBodyDelivery => ({
    id,
    subscription_id: target.id,
    organization_id: organizationId,
    event_id: event.id,
    event_name: eventName,
    family: target.family,
    body,
    occurred_at: occurredAt,
    kept,
  });
  return (target) => {
    const id = deliveryIdOf(target.id, event.id);
    if (target.family === 'legacy') {
      const body = legacyBody({ organizationId, webhookType: target.legacy_type!, data: routed.legacyData ?? routed.data });
      return delivery(target, id, target.legacy_type!, body, { kind: target.legacy_type!, body });
    }
    template ??= namedBodyTemplate({ event: routed.publicName, occurredAt, organizationId, data: routed.data });
    return delivery(target, id, routed.publicName, fillNamedBody(template, id), { kind: 'named', body: template });
  };
}

/** Stop a subscription's waiting deliveries: deleted or disabled means no more sending. */
export function cancelPending(db: Knex, subscriptionId: string, reason: string) {
  return db('webhook_deliveries').where({ subscription_id: subscriptionId, status: 'pending' }).update({ status: 'canceled', claim_token: null, last_error: reason, completed_at: db.fn.now() });
}

/** A row to insert: pending, or already claimed for the local dispatcher (see handoff.ts) with a lease of `lease_ms`. */
type OutboxRow = SharedBodyDelivery & { claim_token?: string; lease_ms?: number };

/**
 * The rows as one JSON parameter rather than a multi-row VALUES: a burst's transaction inserts
 * hundreds of rows, and building and binding nine parameters per row cost the process more CPU
 * than the insert cost the database. Their bodies go once per event to webhook_delivery_bodies
 * in the same statement. A claimed row's lease starts at clock_timestamp(), after the
 * reservation, not at the transaction's start.
 *
 * Fenced (alone in its autocommitted statement with the checkpoint), it commits without waiting
 * for its WAL flush (ASYNC_COMMIT): rows, bodies, mark and checkpoint go or stay together, a
 * batch a crash loses is made again from the event log, and a row it handed over was at worst
 * sent twice. In the runner's transaction the commit is the runner's own, durable: such a batch
 * may carry a subscription's disable, whose reply promises that no attempt starts after it.
 */
async function insertRows(db: Knex | Knex.Transaction, rows: readonly OutboxRow[], options: { raiseTo?: Position; expect?: BatchStart; fence?: Fence } = {}): Promise<string[] | null> {
  const ctes: string[] = [];
  const bindings: string[] = [];
  const checks: string[] = ['true'];
  if (options.fence) {
    ctes.push(ASYNC_COMMIT, options.fence.check.sql);
    bindings.push(...options.fence.check.bindings);
    checks.push(options.fence.guard);
  }
  if (options.expect) {
    const fresh = freshCheck(options.expect);
    ctes.push(fresh.sql);
    bindings.push(...fresh.bindings);
    checks.push('(select ok from fresh)');
  }
  const condition = checks.join(' and ');
  if (options.fence) {
    const save = options.fence.save(condition);
    ctes.push(save.sql);
    bindings.push(...save.bindings);
  }
  ctes.push(`kept as (${insertKeptBodies(condition)})`);
  bindings.push(keptBodies(rows));
  if (options.raiseTo) {
    const raise = raiseHighWater(options.raiseTo);
    ctes.push(`raised as (${raise.sql} and ${condition})`);
    bindings.push(...raise.bindings);
  }
  ctes.push(`inserted as (
     insert into webhook_deliveries (id, subscription_id, organization_id, event_id, event_name, family, occurred_at, claim_token, next_attempt_at)
     select r.id, r.subscription_id, r.organization_id, r.event_id, r.event_name, r.family, r.occurred_at, r.claim_token,
            case when r.lease_ms is null then now() else clock_timestamp() + r.lease_ms * interval '1 millisecond' end
       from jsonb_to_recordset(?::jsonb) as r(id text, subscription_id text, organization_id text, event_id text, event_name text,
                                              family text, occurred_at timestamptz, claim_token uuid, lease_ms int)
      where ${condition}
     on conflict (id) do nothing
     returning id)`);
  bindings.push(JSON.stringify(rows.map(withoutBody)));
  const result = await db.raw(`with ${ctes.join(', ')} select ${condition} as ok, array(select id from inserted) as ids${options.fence ? ' from async_commit' : ''}`, bindings);
  // One row always: a select without from (or from the one-row fence).
  const [{ ok, ids }] = result.rows as [{ ok: boolean; ids: string[] }];
  return ok ? ids : null;
}

/** The row as stored: its body is kept apart. */
export function withoutBody<T extends SharedBodyDelivery>({ body: _, kept: __, ...row }: T): Omit<T, 'body' | 'kept'> {
  return row;
}

/**
 * Rows the local dispatcher takes are inserted claimed and kept here until their batch ends:
 * committed, the ones really inserted (a row that already existed was not, and is someone else's)
 * are handed over; rolled back, or canceled within the batch, they are released.
 */
class Handover {
  private readonly claimed = new Map<string, ClaimedDelivery>();
  private readonly inserted = new Set<string>();
  private readonly reservedAt = Date.now();
  private readonly changed = new Set<string>();

  constructor(private readonly handoff: DeliveryHandoff | undefined) {}

  row(target: SubscriptionRow, delivery: SharedBodyDelivery): OutboxRow {
    const lease = this.handoff?.reserve(delivery.organization_id) ?? null;
    if (lease === null) return delivery;
    const claimToken = randomUUID();
    this.claimed.set(delivery.id, {
      id: delivery.id,
      subscription_id: delivery.subscription_id,
      organization_id: delivery.organization_id,
      event_name: delivery.event_name,
      family: delivery.family,
      body: delivery.body,
      attempts: 0,
      schedule_start: 0,
      claim_token: claimToken,
      url: target.url,
      api_key: target.api_key,
      sealed_secret: target.sealed_secret,
      previous_sealed_secret: target.previous_sealed_secret,
      previous_secret_expires_at: target.previous_secret_expires_at,
    });
    // rowsOf builds the delivery for this row alone, so it takes the claim in place: a copy made
    // by spreading it and adding the two fields cost about 2 µs a row in V8 (Node 20).
    const row: OutboxRow = delivery;
    row.claim_token = claimToken;
    row.lease_ms = lease;
    return row;
  }

  wasInserted(ids: readonly string[]): void {
    for (const id of ids) this.inserted.add(id);
  }

  subscriptionChanged(subscriptionId: string): void {
    this.changed.add(subscriptionId);
  }

  /** The subscription's pending rows were just canceled in the transaction, these included. */
  cancel(subscriptionId: string): void {
    const canceled = [...this.claimed.values()].filter((d) => d.subscription_id === subscriptionId);
    for (const delivery of canceled) this.claimed.delete(delivery.id);
    this.handoff?.release(canceled);
  }

  /** Rows built on subscriptions that turned out stale: none of them was inserted; they are built again. */
  discard(): void {
    this.handoff?.release([...this.claimed.values()]);
    this.claimed.clear();
  }

  /** Called once the batch is written: what happens next depends on whether it committed, now or when `commit` settles. */
  settle(commit: Promise<unknown> | boolean): void {
    const handoff = this.handoff;
    const pending = [...this.inserted].some((id) => !this.claimed.has(id));
    if (!handoff || (!this.claimed.size && !this.changed.size && !pending)) return;
    const all = [...this.claimed.values()];
    const committed = () => {
      if (this.changed.size) handoff.changed([...this.changed]);
      handoff.take(
        all.filter((d) => this.inserted.has(d.id)),
        this.reservedAt,
      );
      handoff.release(all.filter((d) => !this.inserted.has(d.id)));
      if (pending) handoff.queued();
    };
    const rolledBack = () => handoff.release(all);
    if (typeof commit !== 'boolean') commit.then(committed, rolledBack);
    else if (commit) committed();
    else rolledBack();
  }
}

function routedOrganizations(events: readonly RecordedEvent[]): string[] {
  const organizations = new Set<string>();
  for (const event of events) {
    const organizationId = event.data.organizationId;
    if (!webhookTypes.has(event.type) && typeof organizationId === 'string') organizations.add(organizationId);
  }
  return [...organizations];
}

interface Routing {
  routed: RoutedEvent;
  organizationId: string;
}

/** What subscribers see of the event, and whose it is; undefined when it is sent to nobody. */
function routingOf(event: RecordedEvent): Routing | undefined {
  const routed = routeEvent(event.type, event.data);
  const organizationId = event.data.organizationId;
  return routed && typeof organizationId === 'string' ? { routed, organizationId } : undefined;
}

/** The rows a routed event makes for its organization's active subscriptions, `targets`. */
function rowsOf(event: RecordedEvent, { routed, organizationId }: Routing, targets: Targets, handover: Handover): OutboxRow[] {
  const deliveryOf = deliveriesFor(event, routed, organizationId);
  return targets.filter(({ target }) => targetWants(target, routed)).map(({ row }) => handover.row(row, deliveryOf(row)));
}

/**
 * Apply the batch from `start`: fold subscription events into the outbox's copy, cancel the rows
 * of those turned off, and insert the rows of the routed events, the high-water mark raised with
 * them. A `reused` start (the batch before's) is checked by the first insert, which writes nothing
 * if it no longer holds: then this returns false, and the caller starts again from a fresh read.
 */
async function fill(trx: Knex.Transaction, events: readonly RecordedEvent[], start: BatchStart, handover: Handover, reused: boolean): Promise<boolean> {
  const isNew = (event: RecordedEvent) => comparePositions(event.position, start.highWater) > 0;
  const targetsOf = new Map(start.targetsOf);
  let rows: OutboxRow[] = [];
  let unchecked = reused;
  const flush = async (raiseTo?: Position) => {
    // With no row to insert, one statement still raises the mark or checks a reused start.
    const statements = rows.length ? Math.ceil(rows.length / INSERT_CHUNK) : raiseTo || unchecked ? 1 : 0;
    for (let i = 0; i < statements; i++) {
      const chunk = rows.slice(i * INSERT_CHUNK, (i + 1) * INSERT_CHUNK);
      const ids = await insertRows(trx, chunk, { raiseTo: i === 0 ? raiseTo : undefined, expect: unchecked ? start : undefined });
      if (ids === null) return false;
      unchecked = false;
      handover.wasInserted(ids);
    }
    rows = [];
    return true;
  };

  for (const event of events) {
    if (webhookTypes.has(event.type)) {
      const state = await applySubscriptionEvent(trx, 'webhook_outbox_targets', event);
      targetsOf.delete(state.organizationId);
      if (isNew(event)) handover.subscriptionChanged(state.subscriptionId);
      if (isNew(event) && state.status !== 'active') {
        await flush();
        await cancelPending(trx, state.subscriptionId, `subscription ${state.status}`);
        handover.cancel(state.subscriptionId);
      }
      continue;
    }
    const routing = isNew(event) && routingOf(event);
    if (!routing) continue;
    if (!targetsOf.has(routing.organizationId)) targetsOf.set(routing.organizationId, await activeTargets(trx, routing.organizationId));
    rows.push(...rowsOf(event, routing, targetsOf.get(routing.organizationId)!, handover));
  }
  // The mark moves with the batch's last rows, in their statement.
  const last = events[events.length - 1];
  return flush(last && isNew(last) ? last.position : undefined);
}

/**
 * The outbox filler: turns store events into delivery rows for the subscriptions that wanted
 * them at that point of the history, in the transaction that moves its checkpoint. With a
 * handoff (the dispatcher of the same process), new rows go straight to it after the commit.
 *
 * Rebuilds do not re-send history: a rebuild empties only the outbox's copy of the subscriptions
 * and replays to rebuild it, while events at or below the high-water mark (the furthest position
 * ever turned into deliveries, kept outside the projection's tables) create no delivery again.
 * The delivery's id, derived from subscription and event (deliveryIdOf), is the second guard.
 */
export function createOutboxProjection(handoff?: DeliveryHandoff): Projection {
  /** What the last committed batch started from, for the next one to reuse if it still holds. */
  let reusable: BatchStart | undefined;
  return {
    name: WEBHOOK_OUTBOX_PROJECTION,
    eventTypes: [...WEBHOOK_EVENT_TYPES, ...ROUTED_STORED_TYPES],
    tables: ['webhook_outbox_targets'],
    async handle(events, trx) {
      const handover = new Handover(handoff);
      const changesTargets = events.some((event) => webhookTypes.has(event.type));
      const organizations = routedOrganizations(events);
      const previous = reusable;
      reusable = undefined;
      try {
        let start: BatchStart | undefined;
        if (previous && !changesTargets && organizations.every((id) => previous.targetsOf.has(id))) {
          if (await fill(trx, events, previous, handover, true)) start = previous;
          else handover.discard();
        }
        start ??= await batchStart(trx, organizations);
        if (start !== previous) await fill(trx, events, start, handover, false);
        if (changesTargets) {
          await countTargetsChange(trx);
        } else {
          const last = events[events.length - 1];
          const highWater = last && comparePositions(last.position, start.highWater) > 0 ? last.position : start.highWater;
          const next = { ...start, highWater };
          trx.executionPromise.then(
            () => (reusable = next),
            () => undefined,
          );
        }
      } finally {
        handover.settle(trx.executionPromise);
      }
    },

    /**
     * The common batch under a burst, alone in one statement with the runner's checkpoint: no
     * subscription event, every organization's subscriptions known from the batch before (whose
     * start is checked in the same statement, freshCheck), and no more rows than one insert takes
     * (a backlog's batch gains little from saving four round trips). Anything else goes to handle().
     * The row count is bounded by the subscriptions of each event's organization, before any row
     * is built or reserved, so a declined batch is routed once, by handle().
     */
    async writeFenced(events, db, fence) {
      const previous = reusable;
      if (!previous || events.some((event) => webhookTypes.has(event.type))) return undefined;
      let most = 0;
      for (const organizationId of events.map((event) => event.data.organizationId)) {
        if (typeof organizationId !== 'string') continue;
        const targets = previous.targetsOf.get(organizationId);
        if (!targets) return undefined;
        most += targets.length;
      }
      if (most > INSERT_CHUNK) return undefined;
      const handover = new Handover(handoff);
      const isNew = (event: RecordedEvent) => comparePositions(event.position, previous.highWater) > 0;
      let written = false;
      try {
        const rows = events.flatMap((event) => {
          const routing = isNew(event) && routingOf(event);
          return routing ? rowsOf(event, routing, previous.targetsOf.get(routing.organizationId)!, handover) : [];
        });
        reusable = undefined;
        const last = events[events.length - 1]!;
        const ids = await insertRows(db, rows, { raiseTo: isNew(last) ? last.position : undefined, expect: previous, fence });
        if (ids === null) return false;
        handover.wasInserted(ids);
        written = true;
        reusable = { ...previous, highWater: isNew(last) ? last.position : previous.highWater };
        return true;
      } finally {
        handover.settle(written);
      }
    },
  };
}

/** The outbox without a dispatcher beside it (rebuilds, the parked-events command, tests): every row pending. */
export const webhookOutboxProjection = createOutboxProjection();
