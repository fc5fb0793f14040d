import { EventFollower, processCheckpoint } from '../../event-follower.ts';
import { NOTIFICATION_EVENT_TYPES, NotificationProcess } from './process.ts';

const NAME = 'collection-notifications';
export const NOTIFICATION_CHECKPOINT = processCheckpoint(NAME);

/** The collection notification process manager (projector role, one process at a time). */
export class CollectionNotificationWorker extends EventFollower {
  constructor() {
    super(NAME, NOTIFICATION_EVENT_TYPES, (app, log) => {
      const process = new NotificationProcess(app, log);
      return (event) => process.handle(event);
    });
  }
}
