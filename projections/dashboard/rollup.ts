import type { Knex } from 'knex';
import { ALL_KEYS_SQL, DAY_SQL, DURATIONS_SQL, MEASURES, TO_ISSUE } from './contribution.ts';

/** Tables the proposal projection keeps beside proposal_facts (docs/dashboard.md). */
export const DASHBOARD_TABLES = ['dashboard_daily', 'dashboard_durations'] as const;

const DAILY_KEY = ['organization_id', 'dim', 'day', 'key', 'status', 'rejection_step'];
const DURATION_KEY = ['organization_id', 'dim', 'day', 'key', 'status', 'pair', 'days'];
const keyOf = "f.organization_id, d.dim, " + DAY_SQL + " as day, d.key, f.status";
/** Cycle pairs are kept for the whole organization only; creation-to-issue per dimension too (breakdown's timeToOfferDays). */
const KEPT_DURATION = `p.days is not null and (d.dim = 'all' or p.pair = '${TO_ISSUE}')`;

/** Rows of proposal_facts this change concerns: some proposals, or all of them (a backfill). */
const rows = (ids: readonly string[] | null): { where: string; bindings: Knex.RawBinding[] } => (ids === null ? { where: 'true', bindings: [] } : { where: 'f.id = any(?)', bindings: [[...ids]] });

/**
 * Add (sign 1) or take away (sign -1) the contributions of these proposals as their facts rows
 * read now. The projection takes a batch's proposals away before applying it and adds them back
 * after, so a rollup row always equals the sum over the facts, and a replayed event nets nothing.
 */
export async function shiftRollups(trx: Knex.Transaction | Knex, ids: readonly string[] | null, sign: 1 | -1): Promise<void> {
  const { where, bindings } = rows(ids);
  const measures = MEASURES.map((m) => m.column);
  await trx.raw(
    `with daily as (
       insert into dashboard_daily (${DAILY_KEY.join(', ')}, ${measures.join(', ')})
       select ${keyOf}, coalesce(f.rejection_step, '') as rejection_step, ${MEASURES.map((m) => `${sign} * sum(${m.sql})`).join(', ')}
       from proposal_facts f cross join lateral ${ALL_KEYS_SQL} d(dim, key)
       where ${where}
       group by 1, 2, 3, 4, 5, 6
       on conflict (${DAILY_KEY.join(', ')}) do update set ${measures.map((c) => `${c} = dashboard_daily.${c} + excluded.${c}`).join(', ')}
       returning 1
     )
     insert into dashboard_durations (${DURATION_KEY.join(', ')}, n)
     select ${keyOf}, p.pair, p.days, ${sign} * count(*)
     from proposal_facts f cross join lateral ${ALL_KEYS_SQL} d(dim, key) cross join lateral ${DURATIONS_SQL} p(pair, days)
     where ${where} and ${KEPT_DURATION}
     group by 1, 2, 3, 4, 5, 6, 7
     on conflict (${DURATION_KEY.join(', ')}) do update set n = dashboard_durations.n + excluded.n`,
    [...bindings, ...bindings],
  );
  if (sign === 1) return;
  // Groups these proposals alone made up are now zero: gone, as a rebuild would never write them.
  await trx.raw(
    `with keys as (
       select distinct ${keyOf}, coalesce(f.rejection_step, '') as rejection_step
       from proposal_facts f cross join lateral ${ALL_KEYS_SQL} d(dim, key) where ${where}
     ), daily as (
       delete from dashboard_daily r using keys k
       where (${DAILY_KEY.map((c) => `r.${c}`).join(', ')}) = (${DAILY_KEY.map((c) => `k.${c}`).join(', ')}) and r.received = 0
     )
     delete from dashboard_durations r
     using (select distinct ${keyOf}, p.pair, p.days
            from proposal_facts f cross join lateral ${ALL_KEYS_SQL} d(dim, key) cross join lateral ${DURATIONS_SQL} p(pair, days)
            where ${where} and ${KEPT_DURATION}) k
     where (${DURATION_KEY.map((c) => `r.${c}`).join(', ')}) = (${DURATION_KEY.map((c) => `k.${c}`).join(', ')}) and r.n = 0`,
    [...bindings, ...bindings],
  );
}
