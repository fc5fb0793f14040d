import type Logger from 'bunyan';
import { reportDecider, type ReportCommand } from '../../../domain/report/decider.ts';
import { reportStream, type ReportSourcesFinished } from '../../../domain/report/events.ts';
import type { OpinionInput } from '../../../domain/report/opinion-rules.ts';
import { sectionsAwaitingOpinion } from '../../../domain/report/opinion-decider.ts';
import type { ReportState } from '../../../domain/report/state.ts';
import type { RecordedEvent } from '../../../platform/eventstore/port.ts';
import { handleCommand } from '../../command-handler.ts';
import type { AppContext } from '../../context.ts';
import { PolicyVersions } from '../../credit-policy/versions.ts';
import { EventFollower } from '../../event-follower.ts';
import { languageModelFor, priceTableFor } from '../../llm/models.ts';
import { LanguageModelError, type LanguageModel } from '../../llm/port.ts';
import { loadPrompt } from '../../llm/prompts.ts';
import { opinionRequest, PARECER_PROMPT } from './request.ts';

/** The module that buys AI opinions and the committee (spec, What the service does 2). */
export const COMMITTEE_MODULE = 'committee';

function inputOf(state: ReportState, sectionType: OpinionInput['sectionType']): OpinionInput {
  const result = state.results[sectionType]!;
  return {
    sectionType,
    documentType: state.facts!.type,
    outcome: result.outcome,
    details: result.details,
    errors: result.errors.map(({ code, message }) => ({ code, message })),
  };
}

interface Deps {
  app: AppContext;
  model: LanguageModel;
  policies: PolicyVersions;
  priceTableVersion: string;
  log: Logger;
}

/**
 * A finalized report of an organization with module committee, under a policy version with
 * parecerEnabled: ask for the sections' opinions, then ask the model about each section at once
 * and record each answer as it comes (one append at a time, so they never race each other). A
 * model that gave no valid reply after its retries is recorded as ERROR; a replay after a crash
 * asks only about sections still without an opinion.
 */
export async function giveSectionOpinions(deps: Deps, event: RecordedEvent): Promise<void> {
  const { reportId, organizationId, policyId, policyVersion } = event.data as unknown as ReportSourcesFinished['data'];
  const organization = await deps.app.authenticator.organization(organizationId);
  if (!organization?.modules.includes(COMMITTEE_MODULE)) return;
  if (!(await deps.policies.get(policyId, policyVersion)).parecerEnabled) return;

  const prompt = loadPrompt(PARECER_PROMPT);
  const stream = reportStream(reportId);
  const at = () => deps.app.clock.now().toISOString();
  const run = (command: ReportCommand) => handleCommand(deps.app.store, stream, reportDecider, command);
  const { state } = await run({ type: 'RequestSectionOpinions', promptVersion: prompt.version, at: at() });

  let appends = Promise.resolve();
  const record = (command: ReportCommand) => (appends = appends.then(async () => void (await run(command))));
  await Promise.all(
    sectionsAwaitingOpinion(state).map(async ({ sectionId, sectionType }) => {
      const base = { type: 'RecordSectionOpinion', sectionId, priceTableVersion: deps.priceTableVersion } as const;
      try {
        const { output, call } = await deps.model.generate(opinionRequest(prompt, inputOf(state, sectionType)));
        await record({ ...base, result: { status: 'DONE', opinion: output, error: null }, call, at: at() });
      } catch (error) {
        if (!(error instanceof LanguageModelError)) throw error;
        deps.log.warn({ err: error, reportId, sectionType }, 'section opinion failed after its retries');
        await record({ ...base, result: { status: 'ERROR', opinion: null, error: error.message }, call: error.call, at: at() });
      }
    }),
  );
  await appends;
}

/** Follows ReportSourcesFinished (projector role); reports run side by side. */
export const sectionOpinionWorker = () =>
  new EventFollower(
    'report-section-opinions',
    ['ReportSourcesFinished'],
    (app, log) => {
      const deps = { app, model: languageModelFor(app.config), policies: new PolicyVersions(app.store), priceTableVersion: priceTableFor(app.config).version, log };
      return (event) => giveSectionOpinions(deps, event);
    },
    { concurrent: true },
  );
