import type { Worker } from '../application/worker.ts';
import { webhookWorkers } from '../application/webhook/workers.ts';
import { MarketIndexRefreshJob } from '../application/pricing/refresh-job.ts';
import { ReportProcessingWorker } from '../application/report/processing/worker.ts';
import { ExecutionProcessWorker } from '../application/operation/worker.ts';
import { messagingWorkers } from '../application/messaging/workers.ts';
import { TrailSealer } from '../application/collection/trail/sealer.ts';
import { DocumentAnalysisWorker } from '../application/registry/analysis/worker.ts';
import { collectionNotificationWorkers } from '../application/collection/notifications/workers.ts';
import { collectionProcessWorker } from '../application/collection/process.ts';
import { OfferExpiryJob } from '../application/proposal/expiry.ts';
import { signedDocumentWorker } from '../application/collection/signed-document/worker.ts';
import { registryKycExpiryJob } from '../application/registry/kyc-expiry-job.ts';
import { uploadSlotSweepJob } from '../application/financial-upload/sweep.ts';
import { financialExtractionWorker, financialNoticeWorker } from '../application/financial/worker.ts';
import { committeeWorkers } from '../application/committee/workers.ts';
import { sectionOpinionWorker } from '../application/report/opinions/worker.ts';
import { ScreeningRefreshJob } from '../application/screening/refresh.ts';

export { ROLES, type Role, type Worker } from '../application/worker.ts';

/** A module adds a factory for each of its workers here. */
export const workerFactories: Array<() => Worker> = [
  ...webhookWorkers,
  // Before the report worker: a first load of the screening lists completes before reports are taken.
  () => new ScreeningRefreshJob(),
  () => new ReportProcessingWorker(),
  () => new MarketIndexRefreshJob(),
  () => new ExecutionProcessWorker(),
  ...messagingWorkers,
  () => new TrailSealer(),
  () => new DocumentAnalysisWorker(),
  ...collectionNotificationWorkers,
  collectionProcessWorker,
  () => new OfferExpiryJob(),
  signedDocumentWorker,
  registryKycExpiryJob,
  uploadSlotSweepJob,
  () => financialExtractionWorker(),
  financialNoticeWorker,
  ...committeeWorkers,
  sectionOpinionWorker,
];
