import type Logger from 'bunyan';
import type { ReportDecided } from '../../domain/report/events.ts';
import { deliberationDecider } from '../../domain/committee/decider.ts';
import { deliberationStream } from '../../domain/committee/events.ts';
import { orphanedDeliberations } from '../../projections/committee/queries.ts';
import type { RecordedEvent } from '../../platform/eventstore/port.ts';
import { handleCommand } from '../command-handler.ts';
import type { AppContext } from '../context.ts';
import { EventFollower, processCheckpoint } from '../event-follower.ts';
import { languageModelFor } from '../llm/models.ts';
import { webSearchFor } from '../llm/web-search.ts';
import { ScheduledPass } from '../scheduled-pass.ts';
import type { Worker } from '../worker.ts';
import { automaticDeliberationId, committeePolicyOf, convene, policyVersionsOf } from './commands.ts';
import { runDeliberation } from './deliberation-process.ts';

const RUNNER = 'committee-deliberations';

/**
 * On a report's automatic decision (its finalization), convene the committee when the
 * organization has the committee module and the policy version's trigger is AUTO_SUGGEST or
 * AUTO_DECIDE. The id comes from the report, so a replay finds the deliberation already started.
 */
async function onReportDecided(app: AppContext, event: RecordedEvent): Promise<void> {
  const decided = event.data as unknown as ReportDecided['data'];
  if (decided.decidedBy !== 'POLICY') return;
  const organization = await app.authenticator.organization(decided.organizationId);
  if (!organization?.modules.includes('committee')) return;
  const { trigger } = committeePolicyOf(await policyVersionsOf(app).get(decided.policyId, decided.policyVersion));
  if (trigger !== 'AUTO_SUGGEST' && trigger !== 'AUTO_DECIDE') return;
  await convene(app, { deliberationId: automaticDeliberationId(decided.reportId), organizationId: decided.organizationId, reportId: decided.reportId, trigger, userId: null });
}

function runner(app: AppContext, log: Logger) {
  const deps = { app, model: languageModelFor(app.config), webSearch: webSearchFor(app.config), log };
  return (event: RecordedEvent) => runDeliberation(deps, String(event.data.deliberationId));
}

/**
 * Ends ERROR every deliberation left RUNNING behind the runner's checkpoint (docs/committee.md):
 * a crash mid-deliberation is resumed by the runner itself, this catches what it gave up on.
 * Failing a deliberation twice appends nothing, so every process may sweep.
 */
export async function sweepOrphanedDeliberations(app: Pick<AppContext, 'db' | 'store' | 'clock'>): Promise<number> {
  const ids = await orphanedDeliberations(app.db, processCheckpoint(RUNNER));
  for (const id of ids) {
    await handleCommand(app.store, deliberationStream(id), deliberationDecider, {
      type: 'FailDeliberation',
      error: 'A deliberação do comitê foi interrompida e não pôde ser retomada.',
      at: app.clock.now().toISOString(),
    });
  }
  return ids.length;
}

/** Every process may sweep (failing a deliberation twice appends nothing), every COMMITTEE_SWEEP_MS. */
const orphanSweeper = () =>
  new ScheduledPass(
    'committee-orphans',
    (app) => ({ everyMs: app.config.COMMITTEE_SWEEP_MS }),
    async (app) => ({ failed: await sweepOrphanedDeliberations(app) }),
    'orphaned committee deliberations ended ERROR',
    { exclusive: false, level: 'warn' },
  );

export const committeeWorkers: Array<() => Worker> = [
  () => new EventFollower('committee-trigger', ['ReportDecided'], (app) => (event) => onReportDecided(app, event), { concurrent: true }),
  // A deliberation mostly waits on the model: many run side by side.
  () => new EventFollower(RUNNER, ['DeliberationStarted'], runner, { concurrent: true, concurrency: (config) => config.COMMITTEE_CONCURRENCY }),
  orphanSweeper,
];
