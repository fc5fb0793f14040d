import { SECTION_ERROR_MESSAGES, type SectionErrorCode, type SectionResult } from '../../../domain/report/sections.ts';
import { SourceError, type SourceProvider, type SourceQuery } from './port.ts';

/** The worker is stopping: the source's answer is not awaited and no section is recorded for it. */
export class SourceQueryStopped extends Error {
  constructor() {
    super('source query stopped: the process is shutting down');
    this.name = 'SourceQueryStopped';
  }
}

/**
 * Query one source with a deadline and turn whatever happens into a section result: data, or
 * one error with the contract's code. A provider that ignores the abort signal is still cut off
 * at the deadline, so one stuck source never holds the report.
 */
export async function runSource(provider: SourceProvider, query: Omit<SourceQuery, 'signal'>, timeoutMs: number, now: () => Date, stop?: AbortSignal): Promise<SectionResult> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  let onStop: (() => void) | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(new SourceError('INTEGRATION_TIMEOUT'));
    }, timeoutMs);
    onStop = () => {
      controller.abort();
      reject(new SourceQueryStopped());
    };
    if (stop?.aborted) onStop();
    else stop?.addEventListener('abort', onStop, { once: true });
  });
  // A sandbox source's error is made up as much as its data (the test documents take each path).
  const provenance = { provider: provider.integrationType, sandbox: provider.sandbox };
  const failed = (code: SectionErrorCode, message: string): SectionResult => ({
    sectionType: provider.sectionType,
    outcome: 'ERROR',
    details: null,
    selectedIntegrations: [provider.integrationType],
    errors: [{ integrationId: provider.integrationId, integrationType: provider.integrationType, message, code, occurredAt: now().toISOString() }],
    integrationCount: 0,
    provenance,
  });
  try {
    const details = await Promise.race([provider.query({ ...query, signal: controller.signal }), deadline]);
    return { sectionType: provider.sectionType, outcome: 'DONE', details, selectedIntegrations: [provider.integrationType], errors: [], integrationCount: 1, provenance };
  } catch (error) {
    if (error instanceof SourceQueryStopped) throw error;
    if (error instanceof SourceError) return failed(error.code, error.message);
    if (controller.signal.aborted) return failed('INTEGRATION_TIMEOUT', SECTION_ERROR_MESSAGES.INTEGRATION_TIMEOUT);
    return failed('INTEGRATION_UNAVAILABLE', SECTION_ERROR_MESSAGES.INTEGRATION_UNAVAILABLE);
  } finally {
    clearTimeout(timer);
    if (onStop) stop?.removeEventListener('abort', onStop);
    // The race's loser must not surface as an unhandled rejection.
    deadline.catch(() => undefined);
  }
}
