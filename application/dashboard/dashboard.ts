import { dashboardBlocks, type DashboardReply } from '../../domain/dashboard/blocks.ts';
import { dashboardRange } from '../../domain/dashboard/period.ts';
import { filtersKey, parseSla, type DashboardFilters, type DashboardOptions, type Sla } from '../../domain/dashboard/filters.ts';
import { DomainError } from '../../domain/shared/errors.ts';
import { Messages } from '../../domain/shared/messages.ts';
import { proposalSettings } from '../../projections/catalog/queries.ts';
import { DashboardTimeout, readDashboard, type DashboardFilter, type DashboardQuery } from '../../projections/dashboard/queries.ts';
import type { AppContext } from '../context.ts';

/** A dashboard query as the route read it (defaults applied); sla null when the query gave none. */
export type DashboardParams = DashboardFilters & Omit<DashboardOptions, 'sla'> & { sla: Sla | null };

/** The shared filters by the dimension each one filters. */
const filterOf = (p: DashboardFilters): DashboardFilter => ({
  origin: p.origin,
  correspondent: p.correspondentId,
  agent: p.agentId,
  portfolio: p.portfolioId,
  product: p.productKey,
  entityType: p.entityType,
  status: p.status,
});

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

/** What readDashboard is asked for a route's query (bench:dashboard runs the same to show its statements' plans). */
export function dashboardQuery(organizationId: string, params: DashboardParams, sla: Sla, now: number, statementTimeoutMs: number): DashboardQuery {
  const range = dashboardRange(Date.parse(params.from), Date.parse(params.to));
  return { organizationId, filter: filterOf(params), range, compare: params.compare, dim: params.dim, sla, now, statementTimeoutMs };
}

async function compute(app: AppContext, organizationId: string, params: DashboardParams, sla: Sla): Promise<DashboardReply> {
  const query = dashboardQuery(organizationId, params, sla, app.clock.now().getTime(), app.config.DASHBOARD_STATEMENT_TIMEOUT_MS);
  try {
    const data = await readDashboard(app.db, query);
    return dashboardBlocks({ range: query.range, dim: params.dim, sla, now: query.now, data });
  } catch (error) {
    if (!(error instanceof DashboardTimeout)) throw error;
    app.log.warn({ organizationId, timeoutMs: app.config.DASHBOARD_STATEMENT_TIMEOUT_MS }, 'dashboard query exceeded its statement timeout');
    throw new DomainError('upstream', Messages.dashboardLoadFailed);
  }
}

export async function loadDashboard(app: AppContext, organizationId: string, params: DashboardParams): Promise<DashboardReply> {
  // Without a query sla, the organization's (valid by construction: the settings decider checks it), read like one.
  const sla = params.sla ?? parseSla((await proposalSettings(app.db, organizationId)).dashboardSla)!;
  const key = `${organizationId}:${filtersKey(params, { compare: params.compare, dim: params.dim, sla: Object.entries(sla).sort() })}`;
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
