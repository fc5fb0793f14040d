import { creditPolicyDecider, latestSnapshot, type CreditPolicyState } from '../../domain/credit-policy/decider.ts';
import { policyStream } from '../../domain/credit-policy/events.ts';
import type { PolicyContent, PolicySnapshot } from '../../domain/credit-policy/policy.ts';
import type { Principal } from '../../domain/identity/access.ts';
import { DomainError } from '../../domain/shared/errors.ts';
import { CUSTOM_PROMPTS_MODULE } from '../../domain/credit-policy/committee.ts';
import { Messages } from '../../domain/shared/messages.ts';
import { handleCommand, loadState, type Written } from '../command-handler.ts';
import type { AppContext } from '../context.ts';

/** Without `modules` (seeders, tools acting for the organization) no module-gated field is accepted. */
type Caller = Pick<Principal, 'organizationId' | 'userId'> & Partial<Pick<Principal, 'modules'>>;
type App = Pick<AppContext, 'store' | 'ids' | 'clock'>;

export async function createPolicy(app: App, caller: Caller, content: PolicyContent): Promise<Written<CreditPolicyState>> {
  const policyId = app.ids.objectId();
  return handleCommand(app.store, policyStream(policyId), creditPolicyDecider, {
    type: 'CreatePolicy',
    policyId,
    organizationId: caller.organizationId,
    userId: caller.userId,
    content,
    customPromptsAllowed: caller.modules?.has(CUSTOM_PROMPTS_MODULE) ?? false,
    at: app.clock.now().toISOString(),
  });
}

/** An edit: a new immutable version with the whole content (unchanged content makes none). */
export async function createPolicyVersion(app: App, caller: Caller, policyId: string, content: PolicyContent): Promise<Written<CreditPolicyState>> {
  return handleCommand(app.store, policyStream(policyId), creditPolicyDecider, {
    type: 'CreatePolicyVersion',
    policyId,
    organizationId: caller.organizationId,
    userId: caller.userId,
    content,
    customPromptsAllowed: caller.modules?.has(CUSTOM_PROMPTS_MODULE) ?? false,
    at: app.clock.now().toISOString(),
  });
}

export async function archivePolicy(app: App, caller: Caller, policyId: string): Promise<Written<CreditPolicyState>> {
  return handleCommand(app.store, policyStream(policyId), creditPolicyDecider, {
    type: 'ArchivePolicy',
    policyId,
    organizationId: caller.organizationId,
    userId: caller.userId,
    at: app.clock.now().toISOString(),
  });
}

export async function loadPolicy(app: Pick<AppContext, 'store'>, policyId: string): Promise<CreditPolicyState> {
  return (await loadState(app.store, policyStream(policyId), creditPolicyDecider)).state;
}

/**
 * The version a new report runs under: the latest, read from the event store rather than a
 * projection, so a policy saved a moment ago can be used at once.
 */
export async function policyForNewReport(app: Pick<AppContext, 'store'>, organizationId: string, policyId: string): Promise<PolicySnapshot> {
  const state = await loadPolicy(app, policyId);
  const snapshot = latestSnapshot(state);
  if (!snapshot || state.organizationId !== organizationId) throw new DomainError('not_found', Messages.policyNotFound);
  if (state.archived) throw new DomainError('conflict', Messages.policyArchived);
  return snapshot;
}
