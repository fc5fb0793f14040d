import type { Principal } from '../../domain/identity/access.ts';
import { checkCloseDate } from '../../domain/operation/closing.ts';
import { executionStream } from '../../domain/operation/events.ts';
import { executionDecider } from '../../domain/operation/execution-decider.ts';
import type { Position } from '../../platform/eventstore/port.ts';
import { handleCommand } from '../command-handler.ts';
import type { AppContext } from '../context.ts';
import { closeProposal } from '../proposal/commands.ts';

type App = Pick<AppContext, 'store' | 'ids' | 'clock'>;
type Caller = Pick<Principal, 'organizationId' | 'userId'>;

export interface CloseRequest {
  operationResultId: string;
  status: 'ISSUED' | 'CANCELED';
  date: string;
  externalId?: string | null;
}

/**
 * POST /operation/close: the lender's system says the execution was issued (or canceled) on a
 * date. The execution ends first (its ExecutionFinished fires the OPERATION webhook), then the
 * proposal follows. A repeat of the same closing decides nothing on either stream, so it answers
 * as the first did, and it also finishes a proposal a failed first call left behind.
 */
export async function closeExecution(
  app: App,
  caller: Caller,
  request: CloseRequest,
): Promise<{ proposalId: string; closing: { date: string; externalId: string | null }; position: Position | null }> {
  const date = checkCloseDate(request.date);
  const at = app.clock.now().toISOString();
  const closed = await handleCommand(app.store, executionStream(request.operationResultId), executionDecider, {
    type: 'CloseExecution',
    organizationId: caller.organizationId,
    status: request.status,
    date,
    externalId: request.externalId ?? null,
    userId: caller.userId,
    at,
  });
  const proposalId = closed.state.started!.proposalId;
  const proposal = await closeProposal(app, { organizationId: caller.organizationId, proposalId, executionId: request.operationResultId, status: request.status, date, at });
  // A repeat answers with the closing recorded first (its externalId), not with the repeat's.
  return { proposalId, closing: closed.state.finished!.closing!, position: proposal.position ?? closed.position };
}

/** An operator approves or rejects an execution that waits for one; the process manager carries the rest. */
export async function decideAsOperator(app: Pick<AppContext, 'store' | 'clock'>, caller: Caller, executionId: string, approved: boolean, reason: string | null) {
  return handleCommand(app.store, executionStream(executionId), executionDecider, {
    type: 'DecideAsOperator',
    organizationId: caller.organizationId,
    approved,
    userId: caller.userId,
    reason,
    at: app.clock.now().toISOString(),
  });
}
