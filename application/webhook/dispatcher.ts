import { ConfigurationError, parseDurationList } from '../../config/index.ts';
import { PING_EVENT } from '../../domain/webhook/catalog.ts';
import { webhookDecider, webhookStream } from '../../domain/webhook/decider.ts';
import { RETRY_POLICIES, nextStep, type AttemptOutcome } from '../../domain/webhook/retry-policy.ts';
import { DomainError } from '../../domain/shared/errors.ts';
import { handleCommand } from '../command-handler.ts';
import type { AppContext } from '../context.ts';
import type { DeliveryHandoff } from '../../projections/webhook/handoff.ts';
import type { Worker } from '../worker.ts';
import { AttemptRecorder } from './attempt-recorder.ts';
import { claimDue, countFailure, skippedByClaims, type ClaimedDelivery } from './delivery-store.ts';
import { openApiKey, openSigningSecret } from './keys.ts';
import type { LaneItem, LaneResult } from './send-lane.ts';
import { openDeliveryLane, type Attempt, type DeliveryLane } from './sender.ts';
import { SendingRows } from './sending-rows.ts';
import { shareOf } from './slot-share.ts';
import { dispatchSignal, registerDispatcher } from './signals.ts';
import { HeldRows } from './held-rows.ts';
import { WakeablePause } from '../wakeable-pause.ts';

/**
 * How soon an idle dispatcher looks again for rows it was not told of: other processes' (a route
 * or an outbox elsewhere) and their retries. Its own process's rows and its own retries wake it.
 * Each look that finds nothing doubles the pause, up to WEBHOOK_IDLE_POLL_MAX_MS; rows found or a
 * signal start it again here. At a constant 25 ms every idle process claimed 40 times a second,
 * all day.
 */
const IDLE_POLL_MS = 25;
/** A claim outlives the longest wait and attempt by this much before another dispatcher may take it over. */
const LEASE_MARGIN_MS = 5000;
/**
 * Rows of one organization the dispatcher holds in memory at most, in shares of slots, counting
 * those the outbox hands over: deep enough that a burst of ten thousand deliveries goes from the
 * outbox to the wire without claims (with 2,048 rows a burst overflowed into the table and was
 * then sent at the pace of claims, a concurrency's worth per round trip). A row held until too
 * little of its lease is left for an attempt is dropped, not sent.
 */
const QUEUE_SHARES = 512;
/**
 * Rows of one organization in the send lane at most, in concurrencies: its slots, and enough
 * behind them that the lane does not run dry while this thread is busy between two refills.
 */
const LANE_SHARES = 4;

/**
 * A delivery's attempt, built field by field: in V8 (Node 20) an object spread followed by more
 * properties cost about 2 µs, ten times the literal. At module level, because a function defined
 * inside the per-attempt code is a new closure each time, and under tsx each one is also named
 * with Object.defineProperty (esbuild's keepNames): another 2 µs an attempt in a profile.
 */
function attemptTo(delivery: ClaimedDelivery, config: AppContext['config'], headers: Record<string, string>, signing?: Attempt['signing']): Attempt {
  return {
    url: delivery.url,
    body: delivery.body,
    headers,
    timeoutMs: config.WEBHOOK_TIMEOUT_MS,
    allowPrivateNetworks: config.WEBHOOK_ALLOW_PRIVATE_NETWORKS,
    signing,
  };
}

/**
 * Sends due deliveries with bounded concurrency. Any number of processes may run it: rows are
 * claimed with SKIP LOCKED leases. At-least-once: a dispatcher that dies after sending but before
 * recording leaves the row to be sent again, with the same body and id.
 */
export class WebhookDispatcher implements Worker, DeliveryHandoff {
  readonly name = 'webhook-dispatcher';
  readonly role = 'dispatcher' as const;
  private app!: AppContext;
  private delays: number[] = [];
  private stopping = false;
  private loop: Promise<void> | undefined;
  /** Claimed rows waiting to be given to the send lane. */
  private held!: HeldRows;
  /** Rows in the send lane: waiting there for a slot, or being attempted. */
  private readonly sending = new SendingRows();
  private leaseMs = 0;
  private attemptMs = 0;
  private concurrency = 0;
  private share = 0;
  /** Rows of one organization in the lane at most (LANE_SHARES concurrencies). */
  private laneStock = 0;
  private readonly settling = new Set<Promise<void>>();
  private nudged = false;
  /** The loop is idle because the rows held could fill the free slots, not because nothing was due. */
  private waitingForSlots = false;
  private readonly pause = new WakeablePause();
  private unlisten: (() => void) | undefined;
  private recorder!: AttemptRecorder;
  /** Nudges the loop when the earliest retry this dispatcher scheduled comes due, whatever its idle pause. */
  private retryWake: { at: number; timer: NodeJS.Timeout } | undefined;
  private unregister: (() => void) | undefined;
  private lane!: DeliveryLane;

  async start(app: AppContext): Promise<void> {
    this.app = app;
    this.delays = parseDurationList(app.config.WEBHOOK_RETRY_DELAYS);
    this.recorder = new AttemptRecorder(app.db);
    this.concurrency = app.config.WEBHOOK_DISPATCH_CONCURRENCY;
    this.share = shareOf(this.concurrency);
    this.laneStock = LANE_SHARES * this.concurrency;
    this.lane = openDeliveryLane({ concurrency: this.concurrency, inThread: app.config.WEBHOOK_SEND_THREAD, log: app.log }, (results) => this.finished(results));
    // A claim is a lease long enough for a row to wait here, then in the lane behind its
    // organization's other rows, then make its attempt. A row whose lease has less than an attempt
    // and a margin left is not started, here or in the lane (startBy): it is given back, claimed
    // again when the lease ends, and so never sent by two dispatchers at once.
    this.leaseMs = 3 * app.config.WEBHOOK_TIMEOUT_MS + LEASE_MARGIN_MS;
    this.attemptMs = app.config.WEBHOOK_TIMEOUT_MS + LEASE_MARGIN_MS;
    this.held = new HeldRows(this.leaseMs, this.attemptMs, QUEUE_SHARES * this.share);
    this.unlisten = dispatchSignal.listen(() => this.nudge());
    this.unregister = registerDispatcher(app, this);
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.stopping = true;
    clearTimeout(this.retryWake?.timer);
    this.unlisten?.();
    this.unregister?.();
    this.nudge();
    await this.loop;
    await this.lane.close();
  }

  /**
   * A new row of this organization is taken (the outbox inserts it claimed) while the queue has
   * room and no older row of the organization waits in the table.
   */
  reserve(organizationId: string): number | null {
    return !this.stopping && this.held.reserve(organizationId) ? this.leaseMs : null;
  }

  take(rows: readonly ClaimedDelivery[], reservedAt: number): void {
    // After stop the rows stay claimed in their table and are sent once their lease ends.
    if (this.stopping) return this.held.release(rows);
    this.held.hold(rows, reservedAt, true);
    this.forward();
  }

  release(rows: readonly ClaimedDelivery[]): void {
    this.held.release(rows);
  }

  changed(subscriptionIds: readonly string[]): void {
    this.held.drop(new Set(subscriptionIds));
    // Those already in the lane and not started are taken back too; the others were as good as in flight.
    void this.lane.drop(subscriptionIds).then((ids) => {
      this.held.stopped(ids.flatMap((id) => this.sending.take(id) ?? []));
      this.forward();
    });
  }

  queued(): void {
    this.nudge();
  }

  private nudge(): void {
    this.nudged = true;
    this.pause.wake();
  }

  private async run(): Promise<void> {
    const { db, log } = this.app;
    const concurrency = this.concurrency;
    let failures = 0;
    let idlePause = IDLE_POLL_MS;
    while (!this.stopping) {
      if (this.nudged) idlePause = IDLE_POLL_MS;
      this.nudged = false;
      this.forward();
      // Claim the next rows while the current ones are being sent, so a freed slot starts its
      // next delivery at once instead of waiting for a claim; but not while results are still
      // waiting to be written, and in batches (at most one concurrency's worth held ahead). Rows
      // of an organization that has used up its slots do not count: they must not keep the
      // others' rows from being claimed.
      const wanted = concurrency - this.startable();
      if (wanted < Math.max(1, Math.floor(concurrency / 2)) || this.recorder.backlog > concurrency * 4) {
        this.waitingForSlots = true;
        await this.idle(IDLE_POLL_MS);
        this.waitingForSlots = false;
        continue;
      }
      let claimed: ClaimedDelivery[] = [];
      const since = Date.now();
      const share = { perOrganization: concurrency, queued: this.held.queued };
      const skipped = skippedByClaims(share);
      try {
        claimed = await claimDue(db, wanted, this.leaseMs, share);
        failures = 0;
        if (!claimed.length) this.held.drained(skipped);
      } catch (error) {
        failures++;
        log.error({ err: error }, 'webhook claim failed');
        await this.idle(Math.min(5000, 50 * 2 ** failures));
        continue;
      }
      this.held.hold(claimed, since, false);
      this.forward();
      if (claimed.length === wanted) continue;
      if (claimed.length) idlePause = IDLE_POLL_MS;
      if (this.nudged) continue;
      await this.idle(idlePause);
      idlePause = Math.min(this.app.config.WEBHOOK_IDLE_POLL_MAX_MS, idlePause * 2);
    }
    // Rows claimed ahead are sent rather than left to wait for their lease to run out.
    while (this.held.size || this.sending.size) {
      this.forward();
      await this.sending.settled(IDLE_POLL_MS);
    }
    await Promise.all(this.settling);
  }

  /** Rows held that could go to the lane at once, each organization counted for at most its share. */
  private startable(): number {
    return this.held.startable(this.share, (organizationId) => this.sending.of(organizationId) >= this.laneStock);
  }

  /**
   * Keep the lane stocked: up to LANE_SHARES of the concurrency per organization and twice that in
   * all, so a freed slot starts its next attempt there at once, however busy this thread is, while
   * one organization's rows never fill the lane for the others (the lane itself shares its slots).
   */
  private forward(): void {
    const now = Date.now();
    const items: LaneItem[] = [];
    while (this.sending.size < 2 * this.laneStock) {
      const held = this.held.next((organizationId) => this.sending.of(organizationId) < this.laneStock, now);
      if (!held) break;
      const { row, leaseEnd } = held;
      const attempt = this.attemptFor(row, new Date(now));
      if (!attempt) continue;
      this.sending.add(row);
      items.push({ id: row.id, organization_id: row.organization_id, subscription_id: row.subscription_id, attempt, startBy: leaseEnd - this.attemptMs });
    }
    if (items.length) this.lane.add(items);
  }

  /** Results from the lane: record each, then refill the lane and, if it was waiting for room, the claims. */
  private finished(results: readonly LaneResult[]): void {
    for (const { id, startedAt, outcome } of results) {
      const row = this.sending.take(id);
      if (!row) continue;
      if (outcome) this.record(row, new Date(startedAt), outcome);
      else this.held.stopped([row]);
    }
    if (this.stopping) return;
    this.forward();
    // Room in the lane may be what a claim was waiting for (the queue ahead was full): the loop
    // claims again now rather than at its next idle poll. Not after a claim came back short:
    // nothing more was due then, and the outbox or the poll says when there is.
    if (this.waitingForSlots && this.startable() <= this.concurrency / 2) this.pause.wake();
  }

  /**
   * Wake at `at` unless a wake is already set for then or earlier. A later retry behind an earlier
   * one is found by the idle poll, so at most WEBHOOK_IDLE_POLL_MAX_MS after its time.
   */
  private wakeAt(at: number): void {
    if (this.stopping || (this.retryWake && this.retryWake.at <= at)) return;
    clearTimeout(this.retryWake?.timer);
    const timer = setTimeout(() => {
      this.retryWake = undefined;
      this.nudge();
    }, at - Date.now());
    this.retryWake = { at, timer };
  }

  private idle(ms: number): Promise<void> {
    return this.stopping ? Promise.resolve() : this.pause.wait(ms);
  }

  /**
   * What the lane sends for this row, or null when it cannot be signed here: this process lacks
   * the key that sealed the subscription's secret. The receiver is not at fault, so nothing is
   * recorded against it: the lease runs out and a process holding the key (or this one, once
   * configured) sends it. A sealed secret that does not open is recorded like any failure.
   */
  private attemptFor(delivery: ClaimedDelivery, now: Date): Attempt | null {
    try {
      return this.attemptOf(delivery, now);
    } catch (error) {
      if (error instanceof ConfigurationError) {
        this.app.log.error({ err: error, deliveryId: delivery.id, subscriptionId: delivery.subscription_id }, 'configuration error: webhook delivery cannot be signed');
        this.held.stopped([delivery]);
      } else {
        this.record(delivery, now, { ok: false, statusCode: null, failure: 'network', error: (error as Error).message, durationMs: 0 });
      }
      return null;
    }
  }

  private attemptOf(delivery: ClaimedDelivery, now: Date): Attempt {
    const { config } = this.app;
    if (delivery.family === 'legacy') {
      const headers: Record<string, string> = { 'X-Service-Delivery': delivery.id, 'X-Service-Event': delivery.event_name };
      if (delivery.api_key) headers['api-key'] = openApiKey(config, delivery.subscription_id, delivery.api_key);
      return attemptTo(delivery, config, headers);
    }
    const overlap = delivery.previous_sealed_secret && delivery.previous_secret_expires_at && delivery.previous_secret_expires_at > now;
    return attemptTo(
      delivery,
      config,
      {},
      {
        deliveryId: delivery.id,
        event: delivery.event_name,
        secret: openSigningSecret(config, delivery.subscription_id, delivery.sealed_secret!),
        previousSecret: overlap ? openSigningSecret(config, delivery.subscription_id, delivery.previous_sealed_secret!) : null,
      },
    );
  }

  private record(delivery: ClaimedDelivery, startedAt: Date, outcome: AttemptOutcome): void {
    const settling = this.settle(delivery, startedAt, outcome);
    this.settling.add(settling);
    void settling.finally(() => this.settling.delete(settling));
  }

  /** Record the attempt, schedule what comes next, and count a final failure. Never rejects. */
  private async settle(delivery: ClaimedDelivery, startedAt: Date, outcome: AttemptOutcome): Promise<void> {
    const step = nextStep(delivery.family, delivery.attempts - delivery.schedule_start + 1, outcome, this.delays);
    const threshold = RETRY_POLICIES[delivery.family].disableAfterConsecutiveFailures;
    const counted = threshold !== null && delivery.event_name !== PING_EVENT;
    const fields = {
      deliveryId: delivery.id,
      subscriptionId: delivery.subscription_id,
      organizationId: delivery.organization_id,
      event: delivery.event_name,
      family: delivery.family,
      attempt: delivery.attempts - delivery.schedule_start + 1,
      statusCode: outcome.statusCode,
      durationMs: outcome.durationMs,
    };
    if (outcome.ok) this.app.log.info(fields, 'webhook delivered');
    else this.app.log[step.kind === 'failed' ? 'warn' : 'info']({ ...fields, failure: outcome.failure, error: outcome.error, next: step.kind }, 'webhook delivery failed');
    try {
      const moved = await this.recorder.record(delivery, { startedAt, outcome, step, resetsFailures: counted && outcome.ok });
      if (moved && step.kind === 'retry') this.wakeAt(Date.now() + step.delayMs);
      if (!moved || !counted || step.kind !== 'failed') return;
      const failures = await countFailure(this.app.db, delivery.subscription_id);
      if (failures >= threshold) await this.disable(delivery, failures);
    } catch (error) {
      // The lease runs out and the delivery is tried again: at-least-once.
      this.app.log.error({ err: error, deliveryId: delivery.id }, 'webhook attempt could not be recorded');
    }
  }

  private async disable(delivery: ClaimedDelivery, failures: number): Promise<void> {
    try {
      await handleCommand(this.app.store, webhookStream(delivery.subscription_id), webhookDecider, {
        kind: 'disable',
        family: 'named',
        reason: 'consecutive_failures',
        consecutiveFailures: failures,
        organizationId: delivery.organization_id,
        by: null,
        at: this.app.clock.now().toISOString(),
      });
      this.app.log.warn({ subscriptionId: delivery.subscription_id, failures }, 'webhook subscription turned off after consecutive failures');
    } catch (error) {
      // Deleted meanwhile: nothing to turn off.
      if (!(error instanceof DomainError)) throw error;
    }
  }
}
