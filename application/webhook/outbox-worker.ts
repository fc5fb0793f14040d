import { ProjectionRunner } from '../../platform/projections/runner.ts';
import { createOutboxProjection } from '../../projections/webhook/outbox-projection.ts';
import type { AppContext } from '../context.ts';
import type { Worker } from '../worker.ts';
import { localHandoff } from './signals.ts';

/**
 * Runs the outbox filler under the dispatcher role with the projection runner's machinery: one
 * process at a time holds its advisory lock, each batch commits with its checkpoint, and a
 * rebuild's reset is noticed. It is not among the projector's projections (projections/index.ts),
 * so deployments without a dispatcher do not fill an outbox nobody sends. New rows go straight to
 * this process's dispatcher when it has room, and it is told when rows were left pending for it
 * to claim (projections/webhook/handoff.ts); other processes' dispatchers poll.
 */
export class WebhookOutboxWorker implements Worker {
  readonly name = 'webhook-outbox';
  readonly role = 'dispatcher' as const;
  private runner: ProjectionRunner | undefined;

  async start(app: AppContext): Promise<void> {
    this.runner = new ProjectionRunner(app.db, app.store, [createOutboxProjection(localHandoff(app))], {
      batchSize: app.config.PROJECTION_BATCH_SIZE,
      log: app.log.child({ worker: this.name }),
      lockRetryMs: 500,
      leaseMs: app.config.PROJECTION_LEASE_MS,
      maxAttempts: app.config.PROJECTION_MAX_ATTEMPTS,
    });
    await this.runner.start();
  }

  async stop(): Promise<void> {
    await this.runner?.stop();
  }
}
