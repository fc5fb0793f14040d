import { EventFollower, processCheckpoint } from '../event-follower.ts';
import { languageModelFor } from '../llm/models.ts';
import { objectStoreFor } from '../object-store.ts';
import { FinancialNoticeProcess, NOTICE_EVENT_TYPES } from './notice.ts';
import { EXTRACTION_EVENT_TYPES, FinancialExtractionProcess, type ExtractionPorts } from './process.ts';

const NAME = 'financial-extraction';
export const EXTRACTION_CHECKPOINT = processCheckpoint(NAME);

/**
 * The financial statements extraction process manager (projector role, one process at a time).
 * Reports are extracted side by side; one report's batches one after another, in order.
 */
export const financialExtractionWorker = (ports?: Partial<ExtractionPorts>) =>
  new EventFollower(
    NAME,
    EXTRACTION_EVENT_TYPES,
    (app, log) => {
      const process = new FinancialExtractionProcess(app, { store: ports?.store ?? objectStoreFor(app.config), model: ports?.model ?? languageModelFor(app.config), sleep: ports?.sleep }, log);
      return (event) => process.handle(event);
    },
    { concurrent: true },
  );

const NOTICE = 'financial-notice';
export const NOTICE_CHECKPOINT = processCheckpoint(NOTICE);

/** Tells the user who sent a batch what came of it (notice.ts); reports side by side. */
export const financialNoticeWorker = () =>
  new EventFollower(
    NOTICE,
    NOTICE_EVENT_TYPES,
    (app, log) => {
      const process = new FinancialNoticeProcess(app, log);
      return (event) => process.handle(event);
    },
    { concurrent: true },
  );
