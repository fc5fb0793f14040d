import type Logger from 'bunyan';
import { reportDecider, type ReportCommand } from '../../../domain/report/decider.ts';
import { reportStream, type ReportEvent } from '../../../domain/report/events.ts';
import type { SectionResult } from '../../../domain/report/sections.ts';
import { pendingSources, type ReportState } from '../../../domain/report/state.ts';
import { handleCommand, loadState } from '../../command-handler.ts';
import type { EventStore, RecordedEvent } from '../../../platform/eventstore/port.ts';
import type { Clock } from '../../../platform/ids.ts';
import type { PolicySnapshot } from '../../../domain/credit-policy/policy.ts';
import type { PolicyVersions } from '../../credit-policy/versions.ts';
import type { SourceCatalog } from '../sources/port.ts';
import { runSource } from '../sources/run-source.ts';

export interface ProcessingDeps {
  store: EventStore;
  sources: SourceCatalog;
  clock: Clock;
  sourceTimeoutMs: number;
  policies: PolicyVersions;
  log: Logger;
  /** Aborted when the worker stops: sources still out are dropped and the report resumes on the next start. */
  stop?: AbortSignal;
}

/**
 * How long a report may stay PENDING once picked up: sources answering within it carry the start
 * in their own append (one append for a sandbox report); slower ones show PROCESSING meanwhile.
 */
const START_GRACE_MS = 50;

/**
 * The appends of one report, one at a time, each on the state the previous one left (no re-read).
 * Results arriving together (the sandbox answers at once) go in one append; a slow source still
 * shows progress on its own.
 */
class ReportRecorder {
  private queue: SectionResult[] = [];
  private wantStart = false;
  private wantDecision = false;
  private flushing: Promise<void> | null = null;
  private failure: unknown;

  constructor(
    private readonly deps: ProcessingDeps,
    private readonly stream: string,
    private readonly policy: PolicySnapshot,
    private known: { state: ReportState; revision: bigint },
  ) {}

  add(result: SectionResult): void {
    this.queue.push(result);
    this.flushing ??= this.flush();
  }

  start(): void {
    this.wantStart = true;
    this.flushing ??= this.flush();
  }

  /** Record nothing new, which decides a report whose every source has answered. */
  decide(): void {
    this.wantDecision = true;
    this.flushing ??= this.flush();
  }

  private async flush(): Promise<void> {
    try {
      // Let results settling in the same turn join this append.
      await new Promise((resolve) => setImmediate(resolve));
      while (this.queue.length || this.wantStart || this.wantDecision) {
        const results = this.queue.splice(0);
        const record = results.length > 0 || this.wantDecision;
        this.wantStart = this.wantDecision = false;
        const at = this.deps.clock.now().toISOString();
        const command: ReportCommand = record ? { type: 'RecordSectionResults', results, policy: this.policy, at } : { type: 'StartProcessing', at };
        const { state, revision } = await handleCommand(this.deps.store, this.stream, reportDecider, command, { loaded: this.known });
        this.known = { state, revision };
      }
    } catch (error) {
      // Kept for drain(): nobody awaits this promise before then.
      this.failure ??= error;
    } finally {
      this.flushing = null;
    }
  }

  /** Record anything still queued; throws what an append threw. */
  async drain(): Promise<void> {
    while (this.flushing) await this.flushing;
    if (this.failure) throw this.failure;
  }
}

/**
 * Bring one report to its decision: query every source not yet answered concurrently (each with
 * its own deadline) and record the results. Safe to run again at any point: the decider ignores
 * what is already recorded, so a restart finishes a half-done report.
 */
export async function processReport(deps: ProcessingDeps, reportId: string, requested?: RecordedEvent): Promise<void> {
  const stream = reportStream(reportId);
  // The request the worker was handed is usually the whole stream: start from it without a read.
  // If more was recorded meanwhile, the first append conflicts and is decided again on a fresh read.
  const known =
    requested && requested.revision === 0n
      ? { state: reportDecider.evolve(reportDecider.initialState(), { type: requested.type, data: requested.data } as unknown as ReportEvent), revision: 0n }
      : await loadState(deps.store, stream, reportDecider);
  const { state } = known;
  if (!state.facts || state.sourcesFinished || state.processingFailed) return;

  const policy = await deps.policies.get(state.facts.policyId, state.facts.policyVersion);
  const recorder = new ReportRecorder(deps, stream, policy, known);
  const pending = pendingSources(state);
  const started = Date.now();
  const logged = { reportId, organizationId: state.facts.organizationId };
  deps.log.info({ ...logged, sources: pending }, 'report processing started');
  // Every source answered before a crash, but the decision was not recorded: decide now.
  if (pending.length === 0) recorder.decide();
  const timer = state.facts.status === 'PENDING' ? setTimeout(() => recorder.start(), START_GRACE_MS) : undefined;
  try {
    const document = { type: state.facts.type, digits: state.facts.document };
    const query = { reportId, organizationId: state.facts.organizationId, document, now: deps.clock.now() };
    // allSettled: what arrived before a stop is still recorded.
    const settled = await Promise.allSettled(
      pending.map(async (type) => {
        const result = await runSource(deps.sources.providerFor(type, document), query, deps.sourceTimeoutMs, () => deps.clock.now(), deps.stop);
        recorder.add(result);
      }),
    );
    await recorder.drain();
    const failure = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
    if (failure) throw failure.reason;
    deps.log.info({ ...logged, ms: Date.now() - started }, 'report processing finished');
  } finally {
    clearTimeout(timer);
  }
}
