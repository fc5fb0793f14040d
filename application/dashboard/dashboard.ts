import { dashboardBlocks, type DashboardReply, type Dim } from '../../domain/dashboard/blocks.ts';
import { dashboardRange } from '../../domain/dashboard/period.ts';
import { parseSla, type Sla } from '../../domain/dashboard/sla.ts';
import { DomainError } from '../../domain/shared/errors.ts';
import { Messages } from '../../domain/shared/messages.ts';
import { proposalSettings } from '../../projections/catalog/queries.ts';
import { DashboardTimeout, readDashboard, type DashboardFilter } from '../../projections/dashboard/queries.ts';
import type { AppContext } from '../context.ts';

/** A dashboard query as the route read it: the period resolved (defaults applied), lists checked. */
export interface DashboardParams {
  from: number;
  to: number;
  filter: DashboardFilter;
  compare: boolean;
  dim: Dim;
  /** null: the organization's proposal settings' dashboardSla. */
  sla: Sla | null;
}

interface Cached {
  expiresAt: number;
  reply: Promise<DashboardReply>;
}
/**
 * Replies by organization and normalized query, per running app (keyed by its database handle:
 * tests run several apps in one process), for DASHBOARD_CACHE_SECONDS. Concurrent identical
 * queries share one computation; a failure is not kept. Per process: behind a load balancer each
 * process keeps its own, so two processes may answer one query with results up to that age apart.
 */
const caches = new WeakMap<object, Map<string, Cached>>();

/** The same query, whatever the order or repetition of list values, is the same key. */
function cacheKey(organizationId: string, params: DashboardParams, sla: Sla): string {
  const filter = Object.fromEntries(
    Object.entries(params.filter)
      .filter(([, values]) => values?.length)
      .map(([name, values]) => [name, [...new Set(values)].sort()])
      .sort(([a], [b]) => (a! < b! ? -1 : 1)),
  );
  const slaKey = Object.entries(sla).sort(([a], [b]) => (a < b ? -1 : 1));
  return JSON.stringify([organizationId, params.from, params.to, params.compare, params.dim, slaKey, filter]);
}

async function compute(app: AppContext, organizationId: string, params: DashboardParams, sla: Sla): Promise<DashboardReply> {
  const now = app.clock.now().getTime();
  const range = dashboardRange(params.from, params.to);
  try {
    const data = await readDashboard(app.db, {
      organizationId,
      filter: params.filter,
      range,
      compare: params.compare,
      dim: params.dim,
      sla,
      now,
      statementTimeoutMs: app.config.DASHBOARD_STATEMENT_TIMEOUT_MS,
    });
    return dashboardBlocks({ range, dim: params.dim, sla, now, data });
  } catch (error) {
    if (!(error instanceof DashboardTimeout)) throw error;
    app.log.warn({ organizationId, timeoutMs: app.config.DASHBOARD_STATEMENT_TIMEOUT_MS }, 'dashboard query exceeded its statement timeout');
    throw new DomainError('upstream', Messages.dashboardLoadFailed);
  }
}

export async function loadDashboard(app: AppContext, organizationId: string, params: DashboardParams): Promise<DashboardReply> {
  // The settings' sla is valid by construction (the settings decider checks it).
  const sla = params.sla ?? parseSla((await proposalSettings(app.db, organizationId)).dashboardSla)!;
  const key = cacheKey(organizationId, params, sla);
  const now = Date.now();
  let cache = caches.get(app.db);
  if (!cache) caches.set(app.db, (cache = new Map()));
  const hit = cache.get(key);
  if (hit && hit.expiresAt > now) return hit.reply;
  for (const [k, entry] of cache) if (entry.expiresAt <= now) cache.delete(k);
  const reply = compute(app, organizationId, params, sla);
  const entry = { expiresAt: now + app.config.DASHBOARD_CACHE_SECONDS * 1000, reply };
  cache.set(key, entry);
  reply.catch(() => cache.get(key) === entry && cache.delete(key));
  return reply;
}
