import type { Principal } from '../../domain/identity/access.ts';
import { executionStream } from '../../domain/operation/events.ts';
import { executionDecider } from '../../domain/operation/execution-decider.ts';
import { handleCommand } from '../command-handler.ts';
import type { AppContext } from '../context.ts';

/** An operator approves or rejects an execution that waits for one; the process manager carries the rest. */
export async function decideAsOperator(app: Pick<AppContext, 'store' | 'clock'>, caller: Pick<Principal, 'organizationId' | 'userId'>, executionId: string, approved: boolean, reason: string | null) {
  return handleCommand(app.store, executionStream(executionId), executionDecider, {
    type: 'DecideAsOperator',
    organizationId: caller.organizationId,
    approved,
    userId: caller.userId,
    reason,
    at: app.clock.now().toISOString(),
  });
}
