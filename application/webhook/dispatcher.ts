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
import { openApiKey, secretBoxFor } from './keys.ts';
import { safePost } from './safe-http.ts';
import { dispatchSignal, registerDispatcher } from './signals.ts';
import { signedHeaders } from './signing.ts';
import { HeldRows } from './held-rows.ts';
import { SlotShare } from './slot-share.ts';
import { WakeablePause } from '../wakeable-pause.ts';

/** How often an idle dispatcher looks for rows other processes queued (its own are signalled). */
const IDLE_POLL_MS = 25;
/** A claim outlives the longest wait and attempt by this much before another dispatcher may take it over. */
const LEASE_MARGIN_MS = 5000;
/**
 * Rows of one organization the dispatcher holds in memory at most, in shares of slots, counting
 * those the outbox hands over: deep enough that a burst goes from the outbox to the wire without
 * claims. A row held until too little of its lease is left for an attempt is dropped, not sent.
 */
const QUEUE_SHARES = 128;

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
  private readonly inFlight = new Set<Promise<void>>();
  /** Claimed rows waiting for a free slot. */
  private held!: HeldRows;
  private leaseMs = 0;
  private slots!: SlotShare;
  private readonly settling = new Set<Promise<void>>();
  private nudged = false;
  /** The loop is idle because the rows held could fill the free slots, not because nothing was due. */
  private waitingForSlots = false;
  private readonly pause = new WakeablePause();
  private unlisten: (() => void) | undefined;
  private recorder!: AttemptRecorder;
  private unregister: (() => void) | undefined;

  async start(app: AppContext): Promise<void> {
    this.app = app;
    this.delays = parseDurationList(app.config.WEBHOOK_RETRY_DELAYS);
    this.recorder = new AttemptRecorder(app.db);
    this.slots = new SlotShare(app.config.WEBHOOK_DISPATCH_CONCURRENCY);
    // A row claimed ahead may wait before its own attempt: an organization may have a
    // concurrency's worth of rows queued for its half of the slots, two rounds of attempts that
    // can each last the timeout. The lease covers both, so no row is claimed twice meanwhile.
    this.leaseMs = 3 * app.config.WEBHOOK_TIMEOUT_MS + LEASE_MARGIN_MS;
    this.held = new HeldRows(this.leaseMs, app.config.WEBHOOK_TIMEOUT_MS + LEASE_MARGIN_MS, QUEUE_SHARES * this.slots.share);
    this.unlisten = dispatchSignal.listen(() => this.nudge());
    this.unregister = registerDispatcher(app, this);
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.stopping = true;
    this.unlisten?.();
    this.unregister?.();
    this.nudge();
    await this.loop;
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
    this.startReady();
  }

  release(rows: readonly ClaimedDelivery[]): void {
    this.held.release(rows);
  }

  changed(subscriptionIds: readonly string[]): void {
    this.held.drop(new Set(subscriptionIds));
  }

  private nudge(): void {
    this.nudged = true;
    this.pause.wake();
  }

  private async run(): Promise<void> {
    const { config, db, log } = this.app;
    const concurrency = config.WEBHOOK_DISPATCH_CONCURRENCY;
    let failures = 0;
    while (!this.stopping) {
      this.nudged = false;
      this.startReady();
      // Claim the next rows while the current ones are being sent, so a freed slot starts its
      // next delivery at once instead of waiting for a claim; but not while results are still
      // waiting to be written, and in batches (at most one concurrency's worth held ahead). Rows
      // of an organization that has used up its slots do not count: they must not keep the
      // others' rows from being claimed.
      const wanted = concurrency - this.held.startable(this.slots, Date.now());
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
      this.startReady();
      if (claimed.length === wanted) continue;
      if (!this.nudged) await this.idle(IDLE_POLL_MS);
    }
    // Rows claimed ahead are sent rather than left to wait for their lease to run out.
    while (this.held.size || this.inFlight.size) {
      this.startReady();
      await Promise.race(this.inFlight);
    }
    await Promise.all(this.settling);
  }

  /** Fill free slots from the rows claimed ahead, as the organizations' shares allow. */
  private startReady(): void {
    const now = Date.now();
    for (let next = this.held.next(this.slots, now); next; next = this.held.next(this.slots, now)) {
      this.slots.start(next, now);
      this.track(next, this.deliver(next));
    }
  }

  /** A slot is an HTTP attempt in flight; writing its result happens after the slot is free. */
  private track(delivery: ClaimedDelivery, attempt: Promise<void>): void {
    this.inFlight.add(attempt);
    void attempt.finally(() => {
      this.inFlight.delete(attempt);
      this.slots.finish(delivery, Date.now());
      if (!this.stopping) this.startReady();
      // A freed slot may be what a claim was waiting for (the queue ahead was full): the loop
      // claims again now rather than at its next idle poll. Not after a claim came back short:
      // nothing more was due then, and the outbox or the poll says when there is.
      if (this.waitingForSlots && this.held.startable(this.slots, Date.now()) <= this.app.config.WEBHOOK_DISPATCH_CONCURRENCY / 2) this.pause.wake();
    });
  }

  private idle(ms: number): Promise<void> {
    return this.stopping ? Promise.resolve() : this.pause.wait(ms);
  }

  private headersFor(delivery: ClaimedDelivery, now: Date): Record<string, string> {
    if (delivery.family === 'legacy') {
      const headers: Record<string, string> = { 'X-Service-Delivery': delivery.id, 'X-Service-Event': delivery.event_name };
      if (delivery.api_key) headers['api-key'] = openApiKey(this.app.config, delivery.subscription_id, delivery.api_key);
      return headers;
    }
    const box = secretBoxFor(this.app.config);
    const overlap = delivery.previous_sealed_secret && delivery.previous_secret_expires_at && delivery.previous_secret_expires_at > now;
    return signedHeaders({
      deliveryId: delivery.id,
      event: delivery.event_name,
      body: delivery.body,
      secret: box.open(delivery.sealed_secret!, delivery.subscription_id),
      previousSecret: overlap ? box.open(delivery.previous_sealed_secret!, delivery.subscription_id) : null,
      timestamp: Math.floor(now.getTime() / 1000),
    });
  }

  private async deliver(delivery: ClaimedDelivery): Promise<void> {
    const { config } = this.app;
    const startedAt = new Date();
    let outcome: AttemptOutcome;
    try {
      outcome = await safePost({
        url: delivery.url,
        body: delivery.body,
        headers: this.headersFor(delivery, startedAt),
        timeoutMs: config.WEBHOOK_TIMEOUT_MS,
        allowPrivateNetworks: config.WEBHOOK_ALLOW_PRIVATE_NETWORKS,
      });
    } catch (error) {
      if (error instanceof ConfigurationError) {
        // This process lacks the key that sealed the subscription's secret. The receiver is not
        // at fault, so nothing is recorded against it: the lease runs out and a process holding
        // the key (or this one, once configured) sends it.
        this.app.log.error({ err: error, deliveryId: delivery.id, subscriptionId: delivery.subscription_id }, 'configuration error: webhook delivery cannot be signed');
        return;
      }
      // A sealed secret that does not open: recorded like any failure.
      outcome = { ok: false, statusCode: null, failure: 'network', error: (error as Error).message, durationMs: Date.now() - startedAt.getTime() };
    }
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
