import type { Worker } from '../worker.ts';
import { WebhookDispatcher } from './dispatcher.ts';
import { WebhookOutboxWorker } from './outbox-worker.ts';

/** Both run under the dispatcher role; the outbox first so it is stopped last. */
export const webhookWorkers: Array<() => Worker> = [() => new WebhookOutboxWorker(), () => new WebhookDispatcher()];
