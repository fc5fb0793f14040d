import type { Dim } from '../../domain/dashboard/blocks.ts';
import type { MeasureName } from '../../domain/dashboard/indicators.ts';

/**
 * What one proposal_facts row (alias `f`) adds to the dashboard, as SQL expressions. The rollups
 * are these expressions summed by day and dimension; a query that cannot use the rollups sums the
 * same expressions over the facts, so both paths count alike by construction.
 */
/** `all` is the rollup without a dimension (its key ''), for the blocks that sum everything. */
export type RollupDim = Dim | 'all';

/** A missing key is '' in the rollups (a primary key column cannot be null); replies show null. */
export const KEY_SQL: Record<RollupDim, string> = {
  all: "''",
  correspondent: "coalesce(f.correspondent_id, '')",
  agent: "coalesce(f.agent_id, '')",
  product: 'f.product_key',
  portfolio: "coalesce(f.portfolio_id, '')",
  origin: 'f.origin',
  entityType: 'f.entity_type',
};
/** The facts column a list filter of each dimension matches. */
export const FILTER_COLUMN: Record<Dim, string> = {
  correspondent: 'correspondent_id',
  agent: 'agent_id',
  product: 'product_key',
  portfolio: 'portfolio_id',
  origin: 'origin',
  entityType: 'entity_type',
};

/** Brasília time (fixed UTC-3, domain/dashboard/period.ts) of a timestamptz, as a timestamp. */
export const brasilia = (column: string) => `((${column} at time zone 'UTC') - interval '3 hours')`;
/** The Brasília creation date: the daily rollups' day. */
export const DAY_SQL = `${brasilia('f.created_at')}::date`;
/** The Monday of the Brasília creation week: the weekly rollups' day. */
export const WEEK_SQL = `date_trunc('week', ${brasilia('f.created_at')})::date`;
/** A rollup day back to its first instant (Brasília midnight). */
export const dayStartSql = (day: string) => `((${day}::timestamp + interval '3 hours') at time zone 'UTC')`;
/** Monday midnight in Brasília of an instant, as an instant. */
export const weekStartSql = (t: string) => `((date_trunc('week', ${brasilia(t)}) + interval '3 hours') at time zone 'UTC')`;

/** The value the dashboard counts as requested: the product's fixed amount, else the request. */
const REQUESTED = 'coalesce(f.fixed_amount_cents, f.requested_cents, 0)';
/** Offered: the last firm offer, else the chosen value, else the requested value. */
const OFFERED = `coalesce(f.firm_cents, f.chosen_cents, ${REQUESTED})`;
/** Approved: reached pre-approval, an approved final decision, or beyond (firm offer, issued). */
const APPROVED = "(f.pre_approved_at is not null or f.firm_offer_at is not null or f.decision is not distinct from 'APPROVED' or f.status in ('OFFER_ISSUED', 'ISSUED'))";
/** The furthest funnel stage reached: stages count every proposal that reached them or a later one. */
const STAGE =
  "(case when f.status = 'ISSUED' then 5 when f.chosen_at is not null then 4 when f.firm_offer_at is not null then 3 when f.pre_approved_at is not null then 2 when f.analyzed_at is not null then 1 else 0 end)";
/** A condition over nullable columns: null (unknown) counts as false. */
const counted = (condition: string) => `coalesce(${condition}, false)::int`;
const valued = (condition: string, value: string) => `(case when ${condition} then ${value} else 0 end)`;

export const MEASURES: ReadonlyArray<{ name: MeasureName; column: string; sql: string }> = (
  [
    ['received', '1'],
    ['requestedCents', REQUESTED],
    ['approved', counted(APPROVED)],
    ['rejected', counted(`not ${APPROVED} and (f.status = 'REJECTED' or f.decision is not distinct from 'REJECTED')`)],
    ['analyzed', counted(`${STAGE} >= 1`)],
    ['analyzedRequestedCents', valued(`${STAGE} >= 1`, REQUESTED)],
    ['preApproved', counted(`${STAGE} >= 2`)],
    ['preApprovedRequestedCents', valued(`${STAGE} >= 2`, REQUESTED)],
    ['firm', counted(`${STAGE} >= 3`)],
    ['firmOfferedCents', valued(`${STAGE} >= 3`, OFFERED)],
    ['chosen', counted(`${STAGE} >= 4`)],
    ['chosenOfferedCents', valued(`${STAGE} >= 4`, OFFERED)],
    ['issued', counted(`${STAGE} = 5`)],
    ['issuedOfferedCents', valued(`${STAGE} = 5`, OFFERED)],
    ['offersFirm', counted('f.firm_offer_at is not null')],
    ['offersChosen', counted('f.chosen_at is not null')],
    ['expiredWithoutChoice', counted('f.expired_without_choice')],
    ['chosenAmountCents', valued('f.chosen_at is not null', 'coalesce(f.chosen_cents, 0)')],
    ['requestedOfChosenCents', valued('f.chosen_at is not null', REQUESTED)],
    ['chosenByCustomer', counted("f.chosen_by = 'CUSTOMER'")],
    ['chosenByOperator', counted("f.chosen_by = 'OPERATOR'")],
  ] as const
).map(([name, sql]) => ({ name, column: name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`), sql }));

/** The creation-to-issue time of timeToOfferDays, kept beside the cycle's pairs (domain/dashboard/blocks.ts). */
export const TO_ISSUE = 'TO_ISSUE';
/** Durations of 120 days or more fall into this last cycle bucket. */
export const CYCLE_LAST_BUCKET = 120;

/**
 * Whole days from `start` to `end`, when both happened in that order; null otherwise. date_part
 * (double precision) rather than extract (numeric since PostgreSQL 14): the same whole days, and
 * a filtered dashboard computes it for every proposal of its period.
 */
const days = (start: string, end: string, cap: number | null) => {
  const whole = `floor(date_part('epoch', ${end} - ${start}) / 86400)::int`;
  return `(case when ${start} is not null and ${end} >= ${start} then ${cap === null ? whole : `least(${whole}, ${cap})`} end)`;
};
/**
 * (pair, days) of one proposal. A choice made before the firm offer (in this service only
 * indicative offers are chosen, so the firm offer comes after the choice) has no FIRM_CHOSEN
 * duration, and then its CHOSEN_ISSUED runs from the choice.
 */
export const DURATIONS: ReadonlyArray<readonly [pair: string, days: string]> = [
  [TO_ISSUE, days('f.created_at', 'f.issued_at', null)],
  ['RECEIVED_ANALYZED', days('f.created_at', 'f.analyzed_at', CYCLE_LAST_BUCKET)],
  ['ANALYZED_PREAPPROVED', days('f.analyzed_at', 'f.pre_approved_at', CYCLE_LAST_BUCKET)],
  ['PREAPPROVED_FIRM', days('f.pre_approved_at', 'f.firm_offer_at', CYCLE_LAST_BUCKET)],
  ['FIRM_CHOSEN', days('f.firm_offer_at', 'f.chosen_at', CYCLE_LAST_BUCKET)],
  ['CHOSEN_ISSUED', days('f.chosen_at', 'f.issued_at', CYCLE_LAST_BUCKET)],
];
/** Every pair of a row at once, for the rollups (which keep all of them): `cross join lateral DURATIONS_SQL p(pair, days)`. */
export const DURATIONS_SQL = `(values ${DURATIONS.map(([pair, sql]) => `('${pair}', ${sql})`).join(', ')})`;
