import type { Decider, DomainEvent } from '../shared/decider.ts';
import { DomainError } from '../shared/errors.ts';
import { OperationMessages } from './messages.ts';

/**
 * Which pipelines (or policies) run for a proposal now: one stream per proposal, so two runs of
 * the same target at once meet on its revision and the second is refused with the first's id.
 */
export const proposalRunsStream = (proposalId: string) => `proposalruns-${proposalId}`;

export const ProposalRunEventTypes = { registered: 'ProposalRunRegistered', released: 'ProposalRunReleased' } as const;

interface RunFacts {
  proposalId: string;
  organizationId: string;
  executionId: string;
  targetId: string;
  at: string;
}
export type ProposalRunEvent = DomainEvent<'ProposalRunRegistered', RunFacts> | DomainEvent<'ProposalRunReleased', RunFacts>;

export type ProposalRunCommand = ({ type: 'RegisterRun' } | { type: 'ReleaseRun' }) & RunFacts;

/** targetId -> the executionId running it. */
export type ProposalRunsState = Record<string, string>;

export const proposalRunsDecider: Decider<ProposalRunCommand, ProposalRunEvent, ProposalRunsState> = {
  initialState: () => ({}),
  evolve(state, event) {
    if (event.type === 'ProposalRunRegistered') return { ...state, [event.data.targetId]: event.data.executionId };
    const { [event.data.targetId]: _released, ...rest } = state;
    return rest;
  },
  decide(command, state) {
    const { type, ...data } = command;
    const running = state[command.targetId];
    if (type === 'ReleaseRun') return running === command.executionId ? [{ type: 'ProposalRunReleased', data }] : [];
    if (running) throw new DomainError('conflict', OperationMessages.executionRunning, { operationResultId: running });
    return [{ type: 'ProposalRunRegistered', data }];
  },
};
