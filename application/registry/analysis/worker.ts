import { EventFollower, processCheckpoint } from '../../event-follower.ts';
import { documentAnalyserFor } from './vision.ts';
import { ANALYSIS_EVENT_TYPES, DocumentAnalysisProcess } from './process.ts';
import type { DocumentAnalyser } from './port.ts';

const NAME = 'registry-document-analysis';
export const ANALYSIS_CHECKPOINT = processCheckpoint(NAME);

/**
 * The document analysis process manager (projector role, one process at a time) with its analyser
 * (by default the one the configuration names: documentAnalyserFor).
 * Registries are analysed side by side; a registry's documents one after another, in order, since
 * each outcome is recorded on the registry's stream (no write conflicts between its documents).
 */
export class DocumentAnalysisWorker extends EventFollower {
  constructor(analyser?: DocumentAnalyser) {
    super(
      NAME,
      ANALYSIS_EVENT_TYPES,
      (app, log) => {
        const process = new DocumentAnalysisProcess(app, analyser ?? documentAnalyserFor(app.config), log);
        return (event) => process.handle(event);
      },
      // PersonalDataErased has no registry: its own stream.
      { concurrent: true, keyOf: (event) => String(event.data.registryId ?? event.streamName) },
    );
  }
}
