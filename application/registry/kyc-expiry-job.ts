import { registryDecider } from '../../domain/registry/decider.ts';
import { registryStream } from '../../domain/registry/events.ts';
import { registriesWithValidityEnded } from '../../projections/registry/queries.ts';
import { handleCommand } from '../command-handler.ts';
import type { AppContext } from '../context.ts';
import { ScheduledPass } from '../scheduled-pass.ts';

const JOB = 'registry-kyc-expiry';
/** Registries read per query; a run pages through all of them. */
const PAGE = 200;
const DAY_MS = 86_400_000;

type App = Pick<AppContext, 'db' | 'store' | 'clock'>;

const dayBefore = (day: string) => new Date(Date.parse(`${day}T00:00:00.000Z`) - DAY_MS).toISOString().slice(0, 10);

/**
 * Recompute completeness and KYC status, as of the app's clock, of every registry with a
 * validated document whose validity ended since the last finished run (docs/registry.md, "KYC
 * expiry"). The registry decider appends RegistryKycChanged (webhook registry.updated) only when
 * something changed, so a run repeated, interrupted or run by two processes at once appends each
 * drop once. The window reaches one day before the last run's day: a document the projection
 * wrote late (after that run had read) is still found. Returns how many registries changed.
 */
export async function recomputeExpiredKyc(app: App): Promise<number> {
  const at = app.clock.now().toISOString();
  const today = at.slice(0, 10);
  const cursor: { through_day: string } | undefined = await app.db('registry_kyc_sweeps').where({ job: JOB }).first();
  const window = { fromDay: cursor ? dayBefore(cursor.through_day) : null, beforeDay: today };
  let changed = 0;
  for (let after = ''; ;) {
    const page = await registriesWithValidityEnded(app.db, window, after, PAGE);
    for (const { organizationId, registryId } of page) {
      const { position } = await handleCommand(app.store, registryStream(registryId), registryDecider, { type: 'RecomputeKyc', organizationId, registryId, at });
      if (position) changed++;
    }
    if (page.length < PAGE) break;
    after = page[page.length - 1]!.registryId;
  }
  // Only forward: a process with a clock behind another's never moves the cursor back.
  await app.db('registry_kyc_sweeps').insert({ job: JOB, through_day: today, updated_at: at }).onConflict('job').merge().where('registry_kyc_sweeps.through_day', '<', today);
  return changed;
}

/**
 * The scheduler role's KYC expiry (REGISTRY_KYC_CRON, hourly by default: a validity ends at a
 * day's end, so the drop shows within the hour after midnight UTC), one process at a time.
 */
export const registryKycExpiryJob = () => new ScheduledPass(JOB, (app) => app.config.REGISTRY_KYC_CRON, recomputeExpiredKyc, 'registry KYC recomputed after documents expired');
