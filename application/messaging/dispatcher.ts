import type Logger from 'bunyan';
import { parseDurationList } from '../../config/index.ts';
import type { AppContext } from '../context.ts';
import type { Worker } from '../worker.ts';
import { channelsFor, type Channels } from './channels/index.ts';
import { claimDue } from './delivery-store.ts';
import { sendDelivery } from './send-commands.ts';
import { messagingSignal } from './signals.ts';
import { WakeablePause } from '../wakeable-pause.ts';

/** How often an idle dispatcher looks for rows other processes queued (its own are signalled). */
const IDLE_POLL_MS = 200;
/** A claim outlives the longest attempt by this much before another dispatcher may take it over. */
const LEASE_MARGIN_MS = 5000;

/**
 * Sends queued messages on their channels, a few at a time. Any number of processes may run it:
 * rows are claimed with SKIP LOCKED leases. At-least-once: a dispatcher that dies after the
 * channel took a message but before recording it sends it again once the lease runs out (an
 * e-mail keeps its Message-ID, so mailboxes can drop the copy).
 */
export class MessagingDispatcher implements Worker {
  readonly name = 'messaging-dispatcher';
  readonly role = 'dispatcher' as const;
  private app!: AppContext;
  private channels!: Channels;
  private delays: number[] = [];
  private log!: Logger;
  private stopping = false;
  private loop: Promise<void> | undefined;
  private readonly inFlight = new Set<Promise<void>>();
  private readonly pause = new WakeablePause();
  private nudged = false;
  private unlisten: (() => void) | undefined;

  async start(app: AppContext): Promise<void> {
    this.app = app;
    this.log = app.log.child({ worker: this.name });
    this.delays = parseDurationList(app.config.MESSAGING_RETRY_DELAYS);
    this.channels = channelsFor(app);
    this.unlisten = messagingSignal.listen(() => this.nudge());
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.stopping = true;
    this.unlisten?.();
    this.nudge();
    await this.loop;
    await Promise.all(Object.values(this.channels).map((channel) => channel.close()));
  }

  private nudge(): void {
    this.nudged = true;
    this.pause.wake();
  }

  private async run(): Promise<void> {
    const { config, db } = this.app;
    const leaseMs = config.MESSAGING_TIMEOUT_MS + LEASE_MARGIN_MS;
    let failures = 0;
    while (!this.stopping) {
      this.nudged = false;
      const free = config.MESSAGING_DISPATCH_CONCURRENCY - this.inFlight.size;
      if (free <= 0) {
        await Promise.race(this.inFlight);
        continue;
      }
      try {
        const claimed = await claimDue(db, free, leaseMs);
        failures = 0;
        for (const delivery of claimed) this.track(sendDelivery(this.app, this.channels, this.delays, delivery, this.log));
        if (claimed.length === free) continue;
      } catch (error) {
        failures++;
        this.log.error({ err: error }, 'messaging claim failed');
        await this.idle(Math.min(5000, 50 * 2 ** failures));
        continue;
      }
      if (!this.nudged) await this.idle(IDLE_POLL_MS);
    }
    await Promise.all(this.inFlight);
  }

  private track(attempt: Promise<void>): void {
    const settled = attempt.catch((error: unknown) => {
      // The row stays claimed; its lease runs out and it is tried again.
      this.log.error({ err: error }, 'message attempt could not be recorded');
    });
    this.inFlight.add(settled);
    void settled.finally(() => {
      this.inFlight.delete(settled);
      this.pause.wake();
    });
  }

  private idle(ms: number): Promise<void> {
    return this.stopping ? Promise.resolve() : this.pause.wait(ms);
  }
}
