import type Logger from 'bunyan';
import { executionStream, type ExecutionEvent, type ReportOutcome } from '../../domain/operation/events.ts';
import { executionDecider, executionStatus, nextAction, type ExecutionCommand, type ExecutionState, type NextAction } from '../../domain/operation/execution-decider.ts';
import { OperationMessages } from '../../domain/operation/messages.ts';
import { marketIndexesFor } from '../../projections/pricing/queries.ts';
import { indicativeTerms, productRate, validUntil } from '../../domain/operation/offers.ts';
import type { IndicativeTerms } from '../../domain/proposal/events.ts';
import type { ProposalState } from '../../domain/proposal/state.ts';
import { reportDecider } from '../../domain/report/decider.ts';
import { reportStream } from '../../domain/report/events.ts';
import { DomainError } from '../../domain/shared/errors.ts';
import type { RecordedEvent } from '../../platform/eventstore/port.ts';
import { findProductByKey } from '../../projections/catalog/queries.ts';
import { handleCommand, loadState } from '../command-handler.ts';
import type { AppContext } from '../context.ts';
import { BatchedLookup } from '../batched-lookup.ts';
import { KeyedExclusive } from '../follower-lanes.ts';
import { awaitOperator, issueFirmOffer, loadProposal, readProposal, recordDecision, sendIndicativeOffer, startAnalysis } from '../proposal/commands.ts';
import { openStepCollection, stepCollectionOutcome } from './collection-step.ts';
import { contractOutcome, openContract } from './contract.ts';
import { pipelineReportId, releaseRun, requestForRun } from './run-commands.ts';

type App = Pick<AppContext, 'store' | 'ids' | 'clock' | 'db' | 'config' | 'authenticator'>;

type LoadedExecution = { state: ExecutionState; revision: bigint };

const DECIDED: Record<string, ReportOutcome> = { APPROVED: 'APPROVED', DENIED: 'DENIED', MANUAL_ANALYSIS: 'MANUAL_ANALYSIS', FAILED: 'FAILED' };

/**
 * The execution process manager's reactions. Each reaction reads the streams it needs and does at
 * most one thing; what it writes comes back as an event and drives the next step. Every reaction
 * is safe to repeat (a restart replays from the checkpoint): the execution decider ignores a
 * repeated command, and proposal offers are looked up by execution before one is sent again.
 * Executions move side by side (the worker's lanes); the reactions about one execution, whichever
 * lane brought them (its own events, its report's decision, its customer's choice), take turns, so
 * two never both read "no offer yet" and both send one.
 */
export class ExecutionProcess {
  private readonly turns = new KeyedExclusive();
  /** The execution waiting on a report or a collection, if any: most reports and collections are not a pipeline's. */
  private readonly reportLinks = new BatchedLookup((ids) => this.executionsOf('operation_report_links', 'report_id', ids));
  private readonly collectionLinks = new BatchedLookup((ids) => this.executionsOf('operation_collection_links', 'collection_id', ids));

  constructor(
    private readonly app: App,
    private readonly log: Logger,
  ) {}

  async handle(event: RecordedEvent): Promise<void> {
    const data = event.data as Record<string, unknown>;
    switch (event.type) {
      case 'ReportDecided':
      case 'ReportProcessingFailed': {
        const executionId = await this.reportLinks.get(String(data.reportId));
        if (executionId) await this.turns.run(executionId, () => this.drive(executionId));
        return;
      }
      case 'OfferChosen':
      case 'OfferExpired':
        if (typeof data.executionId === 'string') await this.turns.run(data.executionId, () => this.drive(data.executionId as string));
        return;
      case 'SignatureCompleted':
      case 'CollectionCanceled':
      case 'CollectionExpired':
      case 'CollectionCompleted': {
        // Only a collection an execution opened matters here; drive reads what it says from its stream.
        const executionId = await this.collectionLinks.get(String(data.collectionId));
        if (executionId) await this.turns.run(executionId, () => this.drive(executionId));
        return;
      }
      default:
        await this.turns.run(String(data.executionId), async () => {
          await this.mirror({ type: event.type, data } as unknown as ExecutionEvent);
          await this.drive(String(data.executionId));
        });
    }
  }

  private async executionsOf(table: string, column: string, ids: string[]): Promise<Map<string, string>> {
    const rows: Array<Record<string, string>> = await this.app.db(table).whereIn(column, ids).select(column, 'execution_id');
    return new Map(rows.map((row) => [row[column]!, row.execution_id!]));
  }

  /** What an execution event means for its proposal. */
  private async mirror(event: ExecutionEvent): Promise<void> {
    const { executionId, organizationId, proposalId, at } = event.data;
    const ids = { organizationId, proposalId, executionId, at };
    switch (event.type) {
      case 'ExecutionStarted':
        // The run route linked it already; this finishes a run whose route stopped before.
        await this.attempt(executionId, () => startAnalysis(this.app, { ...ids, kind: event.data.kind, targetId: event.data.targetId }));
        return;
      case 'ExecutionReportRequested':
        await this.app.db('operation_report_links').insert({ report_id: event.data.reportId, execution_id: executionId }).onConflict('report_id').ignore();
        return;
      case 'ExecutionContractOpened':
      case 'ExecutionCollectionOpened':
        await this.app.db('operation_collection_links').insert({ collection_id: event.data.collectionId, execution_id: executionId, proposal_id: proposalId }).onConflict('collection_id').ignore();
        return;
      case 'ExecutionOperatorAwaited':
        await this.attempt(executionId, () => awaitOperator(this.app, { ...ids, reason: event.data.reason }));
        return;
      case 'ExecutionApproved': {
        // An operator's approval of a report in manual analysis lets the pipeline go on; only the final approval decides.
        const step = (await this.execution(executionId)).started!.steps[event.data.stepIndex];
        if (step?.kind === 'FINAL_APPROVAL') await this.decide(ids, 'APPROVED', null);
        return;
      }
      case 'ExecutionFinished': {
        const { status, rejectionStep } = event.data;
        if (status === 'REJECTED') await this.decide(ids, 'REJECTED', rejectionStep);
        if (status === 'APPROVED') await this.decide(ids, 'APPROVED', null);
        if (status === 'MANUAL_ANALYSIS') await this.attempt(executionId, () => awaitOperator(this.app, { ...ids, reason: 'MANUAL_ANALYSIS' }));
        const started = (await this.execution(executionId)).started!;
        await releaseRun(this.app, { proposalId, organizationId, executionId, targetId: started.targetId, at });
        return;
      }
    }
  }

  /** A decision is recorded once (the proposal keeps it on the execution's link): a replay finds it there. */
  private async decide(ids: { organizationId: string; proposalId: string; executionId: string; at: string }, decision: 'APPROVED' | 'REJECTED', step: string | null) {
    const proposal = await readProposal(this.app, ids.proposalId);
    if (proposal.state.executions.find((e) => e.executionId === ids.executionId)?.decision === decision) return;
    await this.attempt(ids.executionId, () => recordDecision(this.app, { ...ids, decision, step }, proposal));
  }

  /** Move the execution on: a result it waits for that has arrived, else the next action. */
  async drive(executionId: string): Promise<void> {
    const loaded = await this.loadExecution(executionId);
    const state = loaded.state;
    if (!state.started || state.finished) return;
    const at = this.app.clock.now().toISOString();
    if (state.pendingReportId) {
      const report = (await loadState(this.app.store, reportStream(state.pendingReportId), reportDecider)).state.facts;
      const outcome = report && DECIDED[report.status];
      if (outcome) await this.command(executionId, { type: 'RecordReportResult', reportId: report.reportId, status: outcome, score: report.score, at }, loaded);
      return;
    }
    if (executionStatus(state) === 'WAITING_SIGNATURE') {
      const outcome = await contractOutcome(this.app, state.contract!.collectionId, at);
      if (outcome) await this.command(executionId, outcome, loaded);
      return;
    }
    if (executionStatus(state) === 'WAITING_COLLECTION') {
      const outcome = await stepCollectionOutcome(this.app, state.collection!.collectionId, at);
      if (outcome) await this.command(executionId, outcome, loaded);
      return;
    }
    if (executionStatus(state) === 'WAITING_CUSTOMER') {
      const offer = (await loadProposal(this.app, state.started.proposalId)).offers.find((o) => o.offerId === state.offerId);
      if (offer?.chosen) await this.command(executionId, { type: 'RecordOfferChosen', offerId: offer.offerId, amountCents: offer.chosen.amountCents, termMonths: offer.chosen.termMonths, at }, loaded);
      else if (offer?.expiredAt) await this.command(executionId, { type: 'RecordOfferExpired', offerId: offer.offerId, at }, loaded);
      return;
    }
    const action = nextAction(state);
    if (action) await this.perform(executionId, loaded, action, at);
  }

  private async perform(executionId: string, loaded: LoadedExecution, action: NextAction, at: string): Promise<void> {
    const started = loaded.state.started!;
    const ids = { organizationId: started.organizationId, proposalId: started.proposalId, executionId, at };
    if (action.type === 'DECIDE_FINAL') return this.command(executionId, { type: 'DecideFinalApproval', at }, loaded);
    const proposal = await loadProposal(this.app, started.proposalId);
    const mine = (kind: 'INDICATIVE' | 'FIRM') => proposal.offers.find((o) => o.executionId === executionId && o.kind === kind);
    switch (action.type) {
      case 'REQUEST_REPORT': {
        const reportId = pipelineReportId(executionId, loaded.state.cursor);
        // Created before a crash that kept it from being recorded: recorded now, not created again.
        const created = (await this.app.store.readStream(reportStream(reportId), { maxCount: 1 })).length > 0;
        // The organization's modules as they are now: a pipeline's report has the SCR source when the organization has it.
        const modules = new Set((await this.app.authenticator.organization(started.organizationId))?.modules ?? []);
        const caller = { organizationId: started.organizationId, userId: started.userId, userName: '', modules };
        const report = created ? { reportId } : await this.attempt(executionId, () => requestForRun(this.app, caller, proposal, action.policyId, reportId));
        if (report) await this.command(executionId, { type: 'RecordReport', reportId: report.reportId, policyId: action.policyId, at }, loaded);
        return;
      }
      case 'SEND_OFFER': {
        const offerId = mine('INDICATIVE')?.offerId ?? (await this.sendOffer(executionId, proposal, action.step, ids));
        if (offerId) await this.command(executionId, { type: 'RecordOfferSent', offerId, at }, loaded);
        return;
      }
      case 'ISSUE_FIRM_OFFER': {
        const offer = proposal.offers.find((o) => o.offerId === action.chosen.offerId)!;
        const indicative = offer.terms as IndicativeTerms;
        const { amountCents, termMonths } = action.chosen;
        // The installment the customer was shown when choosing (priced with IOF and fees).
        const installmentCents = Math.round(offer.chosen!.terms.installment * 100);
        const pricing = { rateBpsYear: indicative.rateBpsYear, rate: indicative.rate, model: indicative.model, installmentCents };
        const issue = () => issueFirmOffer(this.app, { ...ids, amountCents, termMonths, ...pricing, validUntil: validUntil(at, action.step.validDays) });
        const offerId = mine('FIRM')?.offerId ?? (await this.attempt(executionId, issue))?.offerId;
        if (offerId) await this.command(executionId, { type: 'RecordFirmOffer', offerId, at }, loaded);
        return;
      }
      case 'OPEN_CONTRACT': {
        const opened = await this.attempt(executionId, () => openContract(this.app, proposal, executionId, action, at));
        if (opened) await this.command(executionId, opened, loaded);
        return;
      }
      case 'OPEN_COLLECTION': {
        const opened = await this.attempt(executionId, () => openStepCollection(this.app, proposal, executionId, action, at));
        if (opened) await this.command(executionId, opened, loaded);
      }
    }
  }

  private async sendOffer(
    executionId: string,
    proposal: ProposalState,
    step: Extract<NextAction, { type: 'SEND_OFFER' }>['step'],
    ids: { organizationId: string; proposalId: string; executionId: string; at: string },
  ) {
    const product = await findProductByKey(this.app.db, ids.organizationId, proposal.created!.productKey);
    const indexes = product?.pricing?.rate.kind === 'INDEXED' ? await marketIndexesFor(this.app.db, ids.organizationId) : [];
    const rate = productRate(product, (key) => indexes.find((index) => index.key === key)?.percentYear);
    if (!product || !rate) {
      await this.command(executionId, { type: 'FailExecution', reason: OperationMessages.productRateUnavailable, at: ids.at });
      return null;
    }
    const offer = indicativeTerms(step, proposal.created!, product, rate, ids.at);
    return (await this.attempt(executionId, () => sendIndicativeOffer(this.app, { ...ids, offer })))?.offerId ?? null;
  }

  /** A refusal of another module (an archived policy, a proposal closed meanwhile) fails the execution with its text. */
  private async attempt<T>(executionId: string, work: () => Promise<T>): Promise<T | null> {
    try {
      return await work();
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      this.log.info({ executionId, reason: error.message }, 'execution failed: a step was refused');
      await this.command(executionId, { type: 'FailExecution', reason: error.message, at: this.app.clock.now().toISOString() });
      return null;
    }
  }

  /** `loaded`: the execution as this reaction read it, decided on without reading it again (handleCommand). */
  private async command(executionId: string, command: ExecutionCommand, loaded?: LoadedExecution): Promise<void> {
    await handleCommand(this.app.store, executionStream(executionId), executionDecider, command, { loaded });
  }

  private loadExecution(executionId: string): Promise<LoadedExecution> {
    return loadState(this.app.store, executionStream(executionId), executionDecider);
  }

  private async execution(executionId: string): Promise<ExecutionState> {
    return (await this.loadExecution(executionId)).state;
  }
}
