import {
  addMeasures,
  addToHistogram,
  histogramSize,
  indicatorsOf,
  percentileDays,
  weeklyOf,
  zeroMeasures,
  zeroOpen,
  type Histogram,
  type Indicators,
  type Measures,
  type OpenCounts,
} from './indicators.ts';
import { SERIES_WEEKS, wholeDays, type DashboardRange } from './period.ts';
import { openStatuses } from './sla.ts';
import { DASHBOARD_DIMS, type DashboardDim, type Sla } from './filters.ts';

/** The breakdown's dimensions (`dim`), each also a list filter. */
export const DIMS = DASHBOARD_DIMS;
export type Dim = DashboardDim;
export const CYCLE_PAIRS = ['RECEIVED_ANALYZED', 'ANALYZED_PREAPPROVED', 'PREAPPROVED_FIRM', 'FIRM_CHOSEN', 'CHOSEN_ISSUED'] as const;

/** Where a grouped row belongs: its creation week and which of the period, comparison and series it is in. */
export interface Placement {
  week: number | null;
  cur: boolean;
  prev: boolean;
  curSeries: boolean;
  prevSeries: boolean;
  /** Rows grouped by key (the breakdown) instead of by week; '' is the group without a key. */
  key: string | null;
  /** The week of a breakdown row, when it is one of the last 12 weeks. */
  recentWeek: number | null;
}
export type MainRow = Placement & { status: string | null; step: string | null; measures: Measures };
export type DurationRow = Placement & { days: number; n: number };
export type OpenRow = Placement & { openNow: number; outOfSla: number };

/** What the queries read for one dashboard: sums, never proposals (but the five oldest). */
export interface DashboardData {
  main: MainRow[];
  toIssue: DurationRow[];
  cycle: Array<{ pair: string; days: number; n: number }>;
  open: OpenRow[];
  mix: Array<{ productKey: string; count: number; requestedCents: number }>;
  aging: Array<{ status: string; upTo2: number; upTo7: number; over7: number; total: number; outOfSla: number }>;
  oldest: Array<{ id: string; name: string; document: string; status: string; statusChangedAt: number; correspondentId: string | null; origin: string }>;
  productNames: Map<string, string>;
  portfolioNames: Map<string, string>;
}

class Group {
  measures = zeroMeasures();
  toIssue: Histogram = new Map();
  open: OpenCounts = zeroOpen();
  indicators = (): Indicators => indicatorsOf(this.measures, this.toIssue, this.open);
}

/** Groups by name, created on first use. */
class Groups {
  private readonly all = new Map<string, Group>();
  get(name: string): Group {
    let group = this.all.get(name);
    if (!group) this.all.set(name, (group = new Group()));
    return group;
  }
  has = (name: string) => this.all.has(name);
}

/** The names of the groups a row adds to: period, comparison, series weeks, breakdown key. */
function groupsOf(row: Placement, range: DashboardRange): string[] {
  if (row.key !== null) return [...(row.cur ? [`key:cur:${row.key}`] : []), ...(row.prev ? [`key:prev:${row.key}`] : [])];
  const names = [...(row.cur ? ['cur'] : []), ...(row.prev ? ['prev'] : [])];
  if (row.curSeries) names.push(`week:cur:${range.weekStarts.indexOf(row.week!)}`);
  if (row.prevSeries) names.push(`week:prev:${range.prevWeekStarts.indexOf(row.week!)}`);
  return names;
}

const CLOSED = ['EXPIRED', 'CANCELED'];
const statusGroup = (status: string) => (status === 'ISSUED' ? 'issued' : status === 'REJECTED' ? 'rejected' : CLOSED.includes(status) ? 'closed' : 'open');
const iso = (t: number) => new Date(t).toISOString();

export interface DashboardInput {
  range: DashboardRange;
  dim: Dim;
  sla: Sla;
  now: number;
  data: DashboardData;
}

export function dashboardBlocks({ range, dim, sla, now, data }: DashboardInput) {
  const groups = new Groups();
  const recent = new Map<string, number[]>();
  const statusWeekly = range.weekStarts.map((weekStart) => ({ weekStart: iso(weekStart), issued: 0, open: 0, rejected: 0, closed: 0 }));
  const rejections = new Map<string, { count: number; requestedCents: number }>();
  const recentWeeks = range.weekStarts.slice(-SERIES_WEEKS);

  for (const row of data.main) {
    for (const name of groupsOf(row, range)) addMeasures(groups.get(name).measures, row.measures);
    if (row.key !== null) {
      const weekly =
        recent.get(row.key) ??
        recent
          .set(
            row.key,
            recentWeeks.map(() => 0),
          )
          .get(row.key)!;
      if (row.recentWeek !== null) weekly[recentWeeks.indexOf(row.recentWeek)]! += row.measures.received;
      continue;
    }
    if (row.curSeries) statusWeekly[range.weekStarts.indexOf(row.week!)]![statusGroup(row.status!)] += row.measures.received;
    if (row.cur && row.status === 'REJECTED') {
      const step = rejections.get(row.step!) ?? rejections.set(row.step!, { count: 0, requestedCents: 0 }).get(row.step!)!;
      step.count += row.measures.received;
      step.requestedCents += row.measures.requestedCents;
    }
  }
  for (const row of data.toIssue) for (const name of groupsOf(row, range)) addToHistogram(groups.get(name).toIssue, row.days, row.n);
  for (const row of data.open) {
    for (const name of groupsOf(row, range)) {
      groups.get(name).open.openNow += row.openNow;
      groups.get(name).open.outOfSla += row.outOfSla;
    }
    if (row.key !== null && !recent.has(row.key))
      recent.set(
        row.key,
        recentWeeks.map(() => 0),
      );
  }

  const cur = groups.get('cur');
  const prev = groups.get('prev');
  const funnel = (m: Measures) =>
    (
      [
        [m.received, m.requestedCents],
        [m.analyzed, m.analyzedRequestedCents],
        [m.preApproved, m.preApprovedRequestedCents],
        [m.firm, m.firmOfferedCents],
        [m.chosen, m.chosenOfferedCents],
        [m.issued, m.issuedOfferedCents],
      ] as const
    ).map(([count, valueCents], stage) => ({ stage, count, valueCents }));
  const weekly = (side: 'cur' | 'prev') => weeklyOf(range.weekStarts.map((_, i) => groups.get(`week:${side}:${i}`).indicators()));
  const label = (key: string) => (dim === 'product' ? (data.productNames.get(key) ?? null) : dim === 'portfolio' ? (data.portfolioNames.get(key) ?? null) : null);
  const keyed = [...new Set([...recent.keys(), ...data.toIssue.filter((r) => r.key !== null).map((r) => r.key!)])].map((key) => {
    const keyCur = groups.get(`key:cur:${key}`).indicators();
    const keyPrev = groups.get(`key:prev:${key}`).indicators();
    return { key: key === '' ? null : key, label: key === '' ? null : label(key), cur: keyCur, prev: keyPrev, weekly: recent.get(key) ?? recentWeeks.map(() => 0) };
  });
  const byKey = (a: { key: string | null }, b: { key: string | null }) => (a.key === b.key ? 0 : a.key === null ? 1 : b.key === null ? -1 : a.key < b.key ? -1 : 1);
  keyed.sort((a, b) => b.cur.received - a.cur.received || b.prev.received - a.prev.received || byKey(a, b));

  const cycle = CYCLE_PAIRS.map((pair) => {
    const histogram: Histogram = new Map();
    for (const row of data.cycle) if (row.pair === pair) addToHistogram(histogram, row.days, row.n);
    return { pair, medianDays: percentileDays(histogram, 0.5), p90Days: percentileDays(histogram, 0.9), n: histogramSize(histogram) };
  });
  const agingRows = openStatuses(sla).map((status) => {
    const row = data.aging.find((r) => r.status === status);
    return { status, slaDays: sla[status] ?? null, upTo2: row?.upTo2 ?? 0, upTo7: row?.upTo7 ?? 0, over7: row?.over7 ?? 0, total: row?.total ?? 0, outOfSla: row?.outOfSla ?? 0 };
  });
  const m = cur.measures;
  const rejectionRows = [...rejections.entries()].map(([step, r]) => ({ step: step === '' ? null : step, count: r.count }));
  rejectionRows.sort((a, b) => b.count - a.count || byKey({ key: a.step }, { key: b.step }));

  return {
    range: { from: iso(range.from), to: iso(range.to), prevFrom: iso(range.prevFrom), prevTo: iso(range.prevTo), weekStarts: range.weekStarts.map(iso) },
    kpis: { cur: cur.indicators(), prev: prev.indicators() },
    weekly: { cur: weekly('cur'), prev: weekly('prev') },
    statusWeekly,
    funnel: { cur: funnel(cur.measures), prev: funnel(prev.measures) },
    breakdown: { dim, rows: keyed },
    mix: data.mix
      .map((p) => ({ productKey: p.productKey, productName: data.productNames.get(p.productKey) ?? p.productKey, count: p.count, requestedCents: p.requestedCents }))
      .sort((a, b) => b.count - a.count || b.requestedCents - a.requestedCents || (a.productKey < b.productKey ? -1 : 1)),
    cycle,
    offers: {
      firm: m.offersFirm,
      chosen: m.offersChosen,
      expiredWithoutChoice: m.expiredWithoutChoice,
      chosenAmountCents: m.chosenAmountCents,
      requestedOfChosenCents: m.requestedOfChosenCents,
      byCustomer: m.chosenByCustomer,
      byOperator: m.chosenByOperator,
    },
    rejections: { total: [...rejections.values()].reduce((a, r) => a + r.count, 0), requestedCents: [...rejections.values()].reduce((a, r) => a + r.requestedCents, 0), rows: rejectionRows },
    aging: {
      rows: agingRows,
      oldest: data.oldest.map((p) => ({
        id: p.id,
        name: p.name,
        document: p.document,
        status: p.status,
        days: wholeDays(now - p.statusChangedAt),
        correspondentId: p.correspondentId,
        origin: p.origin,
      })),
    },
    generatedAt: iso(now),
  };
}
export type DashboardReply = ReturnType<typeof dashboardBlocks>;
