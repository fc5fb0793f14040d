import type { Worker } from '../../worker.ts';
import { CollectionScheduleJob } from './jobs.ts';
import { CollectionNotificationWorker } from './worker.ts';

/** The process manager under the projector role, reminders and expiry under the scheduler role. */
export const collectionNotificationWorkers: Array<() => Worker> = [() => new CollectionNotificationWorker(), () => new CollectionScheduleJob()];
