import { createHash } from 'node:crypto';
import { COMMITTEE_AGENTS, type CommitteeAgent } from '../../domain/committee/agents.ts';
import { deliberationDecider } from '../../domain/committee/decider.ts';
import { deliberationStream, type DeliberationTrigger } from '../../domain/committee/events.ts';
import type { PolicySnapshot } from '../../domain/credit-policy/policy.ts';
import { CommitteeMessages } from '../../domain/committee/messages.ts';
import type { Principal } from '../../domain/identity/access.ts';
import { DomainError } from '../../domain/shared/errors.ts';
import { LockNamespace, withTransactionLock } from '../../platform/database/advisory-lock.ts';
import { COMMITTEE_PROJECTION } from '../../projections/committee/projection.ts';
import { latestDeliberation } from '../../projections/committee/queries.ts';
import { Messages } from '../../domain/shared/messages.ts';
import { handleCommand } from '../command-handler.ts';
import type { AppContext } from '../context.ts';
import { PolicyVersions } from '../credit-policy/versions.ts';
import { loadPrompt } from '../llm/prompts.ts';
import { loadReport, requestedAmountCentsOf } from './report-data.ts';

/** The automatic convocation of a report has one id, so a replayed trigger finds the deliberation it started. */
export const automaticDeliberationId = (reportId: string) => createHash('sha256').update(`committee:auto:${reportId}`).digest('hex').slice(0, 24);

export const promptName = (agent: CommitteeAgent) => `committee-${agent}`;

/** The policy's committee part, with the defaults of a policy that never set one (trigger OFF, no alçadas). */
export function committeePolicyOf(policy: PolicySnapshot) {
  const committee = policy.committee;
  return {
    trigger: committee?.trigger ?? 'OFF',
    settings: { alcadas: committee?.alcadas ?? [], committeeMaxLevel: committee?.committeeMaxLevel ?? null },
    instructions: committee?.instructions ?? {},
    orgVersion: committee?.instructionsVersion ?? null,
  };
}

/**
 * An agent's base prompt (the latest released, or the version a deliberation started with, so a
 * resumed one keeps its words) with the organization's instructions appended.
 */
export function promptFor(policy: PolicySnapshot, agent: CommitteeAgent, version?: string): { version: string; text: string; custom: boolean } {
  const base = loadPrompt(promptName(agent), version);
  const extra = committeePolicyOf(policy).instructions[agent]?.trim();
  if (!extra) return { version: base.version, text: base.text, custom: false };
  return { version: base.version, text: `${base.text}\n\n## Instruções adicionais da organização\n\n${extra}`, custom: true };
}

export interface ConveneRequest {
  deliberationId: string;
  organizationId: string;
  reportId: string;
  trigger: DeliberationTrigger;
  userId: string | null;
}

const policies = new WeakMap<AppContext['store'], PolicyVersions>();
export function policyVersionsOf(app: Pick<AppContext, 'store'>): PolicyVersions {
  let versions = policies.get(app.store);
  if (!versions) policies.set(app.store, (versions = new PolicyVersions(app.store)));
  return versions;
}

/**
 * Start a deliberation on a finalized report: the policy version the report ran under gives the
 * alçadas and the instructions, the prompt files their versions. The runner does the rest.
 */
export async function convene(app: Pick<AppContext, 'store' | 'clock'>, request: ConveneRequest) {
  const report = await loadReport(app, request.reportId);
  const facts = report.facts;
  if (!facts || facts.organizationId !== request.organizationId) throw new DomainError('not_found', Messages.reportNotFound);
  if (!report.sourcesFinished) throw new DomainError('conflict', Messages.reportStillProcessing);
  const policy = await policyVersionsOf(app).get(facts.policyId, facts.policyVersion);
  const committee = committeePolicyOf(policy);
  const prompts = COMMITTEE_AGENTS.map((agent) => [agent, promptFor(policy, agent)] as const);
  const customPrompts = prompts.some(([, p]) => p.custom);
  return handleCommand(app.store, deliberationStream(request.deliberationId), deliberationDecider, {
    type: 'StartDeliberation',
    facts: {
      deliberationId: request.deliberationId,
      organizationId: facts.organizationId,
      reportId: facts.reportId,
      reportCreatedAt: facts.reportCreatedAt,
      document: facts.document,
      externalId: facts.externalId,
      policyId: facts.policyId,
      policyVersion: facts.policyVersion,
      trigger: request.trigger,
      ...(facts.sandboxData ? { sandboxData: true as const } : {}),
    },
    userId: request.userId,
    promptVersion: [...new Set(prompts.map(([, p]) => p.version))].join('+'),
    promptVersionsByAgent: Object.fromEntries(prompts.map(([agent, p]) => [agent, { baseVersion: p.version, orgVersion: p.custom ? committee.orgVersion : null }])) as never,
    customPrompts,
    settings: committee.settings,
    requestedAmountCents: requestedAmountCentsOf(report.inputs),
    at: app.clock.now().toISOString(),
  });
}

/**
 * POST /report/{id}/committee: a new deliberation unless one is running. Two calls at once would
 * both read "none running" from the projection, so the check, the start and the projection
 * catching up with it happen under one lock per report: the second caller reads the first's
 * deliberation and gets the 409.
 */
export async function conveneOnRequest(app: AppContext, principal: Principal, reportId: string) {
  return withTransactionLock(app.db, LockNamespace.committeeConvocation, reportId, async () => {
    const latest = await latestDeliberation(app.db, principal.organizationId, reportId);
    if (latest?.status === 'RUNNING') throw new DomainError('conflict', CommitteeMessages.alreadyRunning);
    const deliberationId = app.ids.objectId();
    const started = await convene(app, {
      deliberationId,
      organizationId: principal.organizationId,
      reportId,
      trigger: latest ? 'RERUN' : 'MANUAL',
      userId: principal.userId,
    }).catch((error: unknown) => {
      if (error instanceof DomainError && error.message === Messages.reportStillProcessing) throw new DomainError('conflict', CommitteeMessages.reportNotFinalized);
      throw error;
    });
    await app.readYourWrites([COMMITTEE_PROJECTION], started.position);
    return { deliberationId, ...started };
  });
}
