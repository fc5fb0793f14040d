import type { Worker } from '../worker.ts';
import { MessagingDispatcher } from './dispatcher.ts';
import { MessagingQueueWorker } from './outbox-worker.ts';

/** The queue filler first, so it is stopped last, after the dispatcher drained what it claimed. */
export const messagingWorkers: Array<() => Worker> = [() => new MessagingQueueWorker(), () => new MessagingDispatcher()];
