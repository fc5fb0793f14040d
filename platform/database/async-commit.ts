/**
 * A CTE that makes its statement's own transaction commit without waiting for its WAL flush.
 * For writes a crash may lose without loss to anyone: what they record is made again from
 * something durable (the event log, a lease that runs out), so at worst a delivery goes twice,
 * which at-least-once allows. WAL is written in order, so a later durable commit makes an earlier
 * one durable too: a crash loses only the newest such writes, never one between two kept ones.
 * It is a CTE rather than SET LOCAL in an explicit transaction so the write stays one round
 * trip; it takes effect only when the statement references it (an unreferenced CTE is never
 * run), and it counts at commit, after the statement has run.
 */
export const ASYNC_COMMIT = `async_commit as (select set_config('synchronous_commit', 'off', true))`;
