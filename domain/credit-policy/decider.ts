import type { Decider } from '../shared/decider.ts';
import { DomainError } from '../shared/errors.ts';
import { Messages } from '../shared/messages.ts';
import type { CreditPolicyEvent } from './events.ts';
import { withCommitteeDefaults, type PolicyContent, type PolicySnapshot } from './policy.ts';
import { validatePolicyContent } from './validate.ts';
import { sameContent } from '../shared/canonical.ts';
import { stampInstructionsVersion, validateCommittee } from './committee.ts';

/** `customPromptsAllowed`: the organization has module committee-custom-prompts (absent: it has not). */
export type CreditPolicyCommand =
  | { type: 'CreatePolicy'; policyId: string; organizationId: string; userId: string; content: PolicyContent; customPromptsAllowed?: boolean; at: string }
  | { type: 'CreatePolicyVersion'; policyId: string; organizationId: string; userId: string; content: PolicyContent; customPromptsAllowed?: boolean; at: string }
  | { type: 'ArchivePolicy'; policyId: string; organizationId: string; userId: string; at: string };

export interface CreditPolicyState {
  policyId: string | null;
  organizationId: string | null;
  /** Every version, oldest first; versions[n - 1] is version n. */
  versions: PolicyContent[];
  archived: boolean;
}

export function latestSnapshot(state: CreditPolicyState): PolicySnapshot | null {
  const content = state.versions[state.versions.length - 1];
  return content && state.policyId ? { ...content, policyId: state.policyId, version: state.versions.length } : null;
}

/** Another organization's policy is answered like an absent one. */
function existing(state: CreditPolicyState, organizationId: string): CreditPolicyState {
  if (state.policyId === null || state.organizationId !== organizationId) throw new DomainError('not_found', Messages.policyNotFound);
  return state;
}

export const creditPolicyDecider: Decider<CreditPolicyCommand, CreditPolicyEvent, CreditPolicyState> = {
  initialState: () => ({ policyId: null, organizationId: null, versions: [], archived: false }),

  evolve(state, event) {
    switch (event.type) {
      case 'CreditPolicyCreated':
        return { policyId: event.data.policyId, organizationId: event.data.organizationId, versions: [withCommitteeDefaults(event.data.content)], archived: false };
      case 'CreditPolicyVersioned':
        return { ...state, versions: [...state.versions, withCommitteeDefaults(event.data.content)] };
      case 'CreditPolicyArchived':
        return { ...state, archived: true };
      default:
        return state;
    }
  },

  decide(command, state) {
    switch (command.type) {
      case 'CreatePolicy': {
        if (state.policyId !== null) throw new DomainError('conflict', Messages.policyAlreadyExists);
        validatePolicyContent(command.content);
        validateCommittee(command.content.committee, command.customPromptsAllowed ?? false);
        const { policyId, organizationId, userId, at } = command;
        const content = stampInstructionsVersion(command.content, []);
        return [{ type: 'CreditPolicyCreated', data: { policyId, organizationId, version: 1, content, userId, createdAt: at } }];
      }
      case 'CreatePolicyVersion': {
        existing(state, command.organizationId);
        if (state.archived) throw new DomainError('conflict', Messages.policyArchived);
        const latest = state.versions[state.versions.length - 1]!;
        // Reports and proposals were matched to the policy by document type: it cannot change under them.
        if (command.content.documentType !== latest.documentType) throw new DomainError('invalid', Messages.policyDocumentTypeChange);
        validatePolicyContent(command.content);
        validateCommittee(command.content.committee, command.customPromptsAllowed ?? false);
        const content = stampInstructionsVersion(command.content, state.versions);
        // Saving an unchanged policy is not an edit: no new version.
        if (sameContent(content, latest)) return [];
        const { policyId, organizationId, userId, at } = command;
        const version = state.versions.length + 1;
        return [{ type: 'CreditPolicyVersioned', data: { policyId, organizationId, version, content, userId, createdAt: at } }];
      }
      case 'ArchivePolicy': {
        existing(state, command.organizationId);
        if (state.archived) return [];
        const { policyId, organizationId, userId, at } = command;
        return [{ type: 'CreditPolicyArchived', data: { policyId, organizationId, version: state.versions.length, userId, archivedAt: at } }];
      }
    }
  },
};
