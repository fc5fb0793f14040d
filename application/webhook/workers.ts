import type { Worker } from '../worker.ts';
import { WebhookDispatcher } from './dispatcher.ts';
import { WebhookOutboxWorker } from './outbox-worker.ts';
import { WebhookRetentionJob } from './retention.ts';

/** The outbox and the dispatcher run under the dispatcher role, the outbox first so it is stopped last; the retention job under the scheduler role. */
export const webhookWorkers: Array<() => Worker> = [() => new WebhookOutboxWorker(), () => new WebhookDispatcher(), () => new WebhookRetentionJob()];
