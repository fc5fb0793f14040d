import { ProjectionRunner } from '../../platform/projections/runner.ts';
import { messagingDeliveriesProjection } from '../../projections/messaging/deliveries-projection.ts';
import type { AppContext } from '../context.ts';
import type { Worker } from '../worker.ts';
import { messagingSignal } from './signals.ts';

/**
 * Fills the dispatcher's queue from MessageQueued under the dispatcher role, with the projection
 * runner's machinery (one holder through its lease, each batch committed with its checkpoint).
 */
export class MessagingQueueWorker implements Worker {
  readonly name = 'messaging-queue';
  readonly role = 'dispatcher' as const;
  private runner: ProjectionRunner | undefined;

  async start(app: AppContext): Promise<void> {
    this.runner = new ProjectionRunner(app.db, app.store, [messagingDeliveriesProjection], {
      batchSize: app.config.PROJECTION_BATCH_SIZE,
      log: app.log.child({ worker: this.name }),
      lockRetryMs: 500,
      leaseMs: app.config.PROJECTION_LEASE_MS,
      maxAttempts: app.config.PROJECTION_MAX_ATTEMPTS,
    });
    this.runner.onProgress((wrote) => wrote && messagingSignal.notify());
    await this.runner.start();
  }

  async stop(): Promise<void> {
    await this.runner?.stop();
  }
}
