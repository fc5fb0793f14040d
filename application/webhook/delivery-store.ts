import type { Knex } from 'knex';
import { ASYNC_COMMIT } from '../../platform/database/async-commit.ts';
import type { AttemptOutcome, NextStep } from '../../domain/webhook/retry-policy.ts';
import { BODY_JOIN, DELIVERY_BODY } from '../../projections/webhook/bodies.ts';
import type { ClaimedDelivery } from '../../projections/webhook/handoff.ts';

export type { ClaimedDelivery };

/** Rows whose subscription the outbox has not seen yet (a ping right after creation) wait this long. */
const NOT_YET_MS = 1000;
/** Due rows looked at per free slot: room for other organizations behind one organization's backlog. */
const CANDIDATES_PER_SLOT = 4;

/**
 * Claim due rows for this dispatcher. SKIP LOCKED lets any number of dispatcher processes claim
 * side by side; the claim itself is a lease (next_attempt_at pushed past the attempt's longest
 * possible duration, plus a fresh claim token), so no connection is held while delivering, and a
 * dispatcher that dies mid-delivery leaves the row due again once the lease runs out. It commits
 * without waiting for its WAL flush (ASYNC_COMMIT): a claim a crash loses leaves its row due, at
 * worst sent twice.
 *
 * Due rows are picked by the partial index alone (a join there makes the planner sort every
 * pending row); the subscription is judged after: active, or any existing one for ping (so an
 * operator can test before enabling), is sent; one that is off gets its row canceled (the outbox
 * normally did that already); one the outbox has not seen yet is looked at again shortly.
 *
 * Tenants share the queue ahead fairly (the slots themselves are shared by SlotShare): an
 * organization gets at most `share.perOrganization` rows claimed ahead (`share.queued` says how
 * many it has already), and one with half that many or more already queued is skipped by the
 * scan, so a claim looks past its backlog to the rows of other organizations.
 */
/** Organizations a claim skips: half a concurrency's worth of their rows or more are queued already. */
export function skippedByClaims(share: { perOrganization: number; queued: ReadonlyMap<string, number> }): string[] {
  return [...share.queued].filter(([, n]) => n >= Math.ceil(share.perOrganization / 2)).map(([organization]) => organization);
}

export async function claimDue(db: Knex, limit: number, leaseMs: number, share: { perOrganization: number; queued: ReadonlyMap<string, number> }): Promise<ClaimedDelivery[]> {
  const full = skippedByClaims(share);
  const result = await db.raw(
    `with ${ASYNC_COMMIT}, candidates as (
       select d.id, d.organization_id, d.next_attempt_at from webhook_deliveries d
        where d.status = 'pending' and d.next_attempt_at <= now() and d.organization_id <> all(?::text[])
        order by d.next_attempt_at
        limit ?
          for update skip locked
     ), due as (
       select c.id from (
         select c.*, row_number() over (partition by c.organization_id order by c.next_attempt_at) as n from candidates c
       ) c
       left join jsonb_each_text(?::jsonb) busy on busy.key = c.organization_id
        where c.n <= ? - coalesce(busy.value::int, 0)
        order by c.next_attempt_at
        limit ?
     ), judged as (
       select due.id,
              case when t.id is null then 'later'
                   when t.status = 'active' or d.event_name = 'ping' then 'send'
                   else 'cancel' end as verdict,
              t.url, t.api_key, t.sealed_secret, t.previous_sealed_secret, t.previous_secret_expires_at, ${DELIVERY_BODY} as body
         from due
         join webhook_deliveries d on d.id = due.id
         ${BODY_JOIN}
         left join webhook_outbox_targets t on t.id = d.subscription_id
     )
     update webhook_deliveries d
        set next_attempt_at = now() + (case j.verdict when 'send' then ? when 'later' then ? else 0 end) * interval '1 millisecond',
            claim_token = case when j.verdict = 'send' then gen_random_uuid() end,
            status = case when j.verdict = 'cancel' then 'canceled' else d.status end,
            completed_at = case when j.verdict = 'cancel' then now() else d.completed_at end,
            last_error = case when j.verdict = 'cancel' then 'subscription not active' else d.last_error end
       from judged j, async_commit
      where d.id = j.id
     returning d.id, d.subscription_id, d.organization_id, d.event_name, d.family, j.body, d.attempts, d.schedule_start,
               d.claim_token, j.verdict, j.url, j.api_key, j.sealed_secret, j.previous_sealed_secret, j.previous_secret_expires_at`,
    [full, limit * CANDIDATES_PER_SLOT, JSON.stringify(Object.fromEntries(share.queued)), share.perOrganization, limit, leaseMs, NOT_YET_MS],
  );
  return (result.rows as Array<ClaimedDelivery & { verdict: string }>).filter((row) => row.verdict === 'send').map(({ verdict: _, ...row }) => row);
}

export interface AttemptRecord {
  startedAt: Date;
  outcome: AttemptOutcome;
  step: NextStep;
  /** A success of a subscription whose consecutive failures are counted. */
  resetsFailures: boolean;
}

const STATUS_AFTER: Record<NextStep['kind'], string> = { succeeded: 'succeeded', retry: 'pending', failed: 'failed' };

/**
 * Log attempts and move their deliveries on, many in one statement (the dispatcher batches
 * whatever finished while the previous write was running). Log rows are written whatever
 * happens; a delivery moves only if its claim still holds (a redelivery or a cancel in the
 * meantime wins). Returns the ids that moved. Committed without waiting for the WAL flush
 * (ASYNC_COMMIT): a record a crash loses leaves its row claimed until the lease runs out, and the
 * delivery is sent again.
 */
export async function recordAttempts(db: Knex, items: ReadonlyArray<{ delivery: ClaimedDelivery; record: AttemptRecord }>): Promise<Set<string>> {
  const input = items.map(({ delivery, record }) => ({
    id: delivery.id,
    claim_token: delivery.claim_token,
    subscription_id: delivery.subscription_id,
    attempt: delivery.attempts + 1,
    started_at: record.startedAt.toISOString(),
    duration_ms: Math.round(record.outcome.durationMs),
    status_code: record.outcome.statusCode,
    outcome: record.outcome.ok ? 'succeeded' : record.outcome.failure,
    error: record.outcome.error,
    status: STATUS_AFTER[record.step.kind],
    next_attempt_at: record.step.kind === 'retry' ? new Date(Date.now() + record.step.delayMs).toISOString() : null,
    finished: record.step.kind !== 'retry',
    resets_failures: record.resetsFailures,
  }));
  const result = await db.raw(
    `with ${ASYNC_COMMIT}, input as (
       select * from jsonb_to_recordset(?::jsonb)
         as i(id text, claim_token uuid, subscription_id text, attempt int, started_at timestamptz, duration_ms int, status_code int,
              outcome text, error text, status text, next_attempt_at timestamptz, finished boolean, resets_failures boolean)
     ), attempt as (
       insert into webhook_delivery_attempts (delivery_id, subscription_id, attempt, started_at, duration_ms, status_code, outcome, error)
       select id, subscription_id, attempt, started_at, duration_ms, status_code, outcome, error from input
     ), reset as (
       update webhook_health h set consecutive_failures = 0
         from input i
        where h.subscription_id = i.subscription_id and i.resets_failures and h.consecutive_failures > 0
     )
     update webhook_deliveries d
        set status = i.status, attempts = d.attempts + 1, next_attempt_at = coalesce(i.next_attempt_at, d.next_attempt_at),
            last_status_code = i.status_code, last_error = i.error,
            completed_at = case when i.finished then now() else null end, claim_token = null
       from input i, async_commit
      where d.id = i.id and d.claim_token = i.claim_token
     returning d.id`,
    [JSON.stringify(input)],
  );
  return new Set((result.rows as Array<{ id: string }>).map((row) => row.id));
}

/** One more delivery of the subscription failed for good: how many in a row now. */
export async function countFailure(db: Knex, subscriptionId: string): Promise<number> {
  const result = await db.raw(
    `insert into webhook_health (subscription_id, consecutive_failures, last_failure_at) values (?, 1, now())
     on conflict (subscription_id) do update
       set consecutive_failures = webhook_health.consecutive_failures + 1, last_failure_at = now()
     returning consecutive_failures`,
    [subscriptionId],
  );
  return Number(result.rows[0].consecutive_failures);
}

export function resetFailures(db: Knex, subscriptionId: string) {
  return db('webhook_health').where({ subscription_id: subscriptionId }).update({ consecutive_failures: 0 });
}
