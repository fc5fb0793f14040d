import type { Decider } from '../shared/decider.ts';
import { DomainError } from '../shared/errors.ts';
import { sameContent } from '../shared/canonical.ts';
import type { OperationEvent } from './events.ts';
import { OperationMessages } from './messages.ts';
import { validatePipeline, type PipelineContent } from './pipeline.ts';

export type OperationCommand =
  | { type: 'CreateOperation'; operationId: string; organizationId: string; userId: string; content: PipelineContent; at: string }
  | { type: 'CreateOperationVersion'; operationId: string; organizationId: string; userId: string; content: PipelineContent; at: string };

export interface OperationState {
  operationId: string | null;
  organizationId: string | null;
  /** versions[n - 1] is version n. */
  versions: PipelineContent[];
}

/** Pipelines are versioned like credit policies: every save of a changed content is a new immutable version. */
export const operationDecider: Decider<OperationCommand, OperationEvent, OperationState> = {
  initialState: () => ({ operationId: null, organizationId: null, versions: [] }),

  evolve(state, event) {
    switch (event.type) {
      case 'OperationCreated':
        return { operationId: event.data.operationId, organizationId: event.data.organizationId, versions: [event.data.content] };
      case 'OperationVersioned':
        return { ...state, versions: [...state.versions, event.data.content] };
      default:
        return state;
    }
  },

  decide(command, state) {
    const { operationId, organizationId, userId, content, at } = command;
    if (command.type === 'CreateOperation') {
      if (state.operationId !== null) throw new DomainError('conflict', OperationMessages.operationAlreadyExists);
      validatePipeline(content);
      return [{ type: 'OperationCreated', data: { operationId, organizationId, version: 1, content, userId, createdAt: at } }];
    }
    // Another organization's pipeline is answered like an absent one.
    if (state.operationId === null || state.organizationId !== organizationId) throw new DomainError('not_found', OperationMessages.operationNotFound);
    validatePipeline(content);
    if (sameContent(content, state.versions[state.versions.length - 1])) return [];
    return [{ type: 'OperationVersioned', data: { operationId, organizationId, version: state.versions.length + 1, content, userId, createdAt: at } }];
  },
};
