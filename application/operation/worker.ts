import { ExecutionEventTypes } from '../../domain/operation/events.ts';
import { ProposalEventTypes } from '../../domain/proposal/events.ts';
import { ReportEventTypes } from '../../domain/report/public-events.ts';
import { EventFollower, processCheckpoint } from '../event-follower.ts';
import { ExecutionProcess } from './process.ts';

const NAME = 'operation-executions';
export const EXECUTION_CHECKPOINT = processCheckpoint(NAME);

/** What a contract's collection may say to the execution waiting on it. */
const CONTRACT_COLLECTION_EVENTS = ['SignatureCompleted', 'CollectionCanceled', 'CollectionExpired', 'CollectionCompleted'];

/** The events executions wait on: their own, their reports' decisions, their customers' choices and lapsed offers, their contracts' collections. */
const EVENT_TYPES = [
  ...Object.values(ExecutionEventTypes),
  ReportEventTypes.decided,
  'ReportProcessingFailed',
  ProposalEventTypes.offerChosen,
  ProposalEventTypes.offerExpired,
  ...CONTRACT_COLLECTION_EVENTS,
];

/**
 * The execution process manager (projector role, one process at a time): executions move on the
 * events above, PROCESS_MANAGER_CONCURRENCY of them side by side (each execution's reactions in
 * turn: ExecutionProcess).
 */
export class ExecutionProcessWorker extends EventFollower {
  constructor() {
    super(
      NAME,
      EVENT_TYPES,
      (app, log) => {
        const process = new ExecutionProcess(app, log);
        return (event) => process.handle(event);
      },
      { concurrent: true },
    );
  }
}
