import { PRODUCT_KEY_PATTERN } from '../catalog/validate.ts';
import type { EntityType } from '../pricing/terms.ts';
import { ENTITY_TYPES } from '../pricing/terms.ts';
import { Messages } from '../shared/messages.ts';
import { PROPOSAL_ORIGINS, type ProposalOrigin } from '../proposal/events.ts';
import { DashboardMessages } from './messages.ts';
import { PROPOSAL_STATUSES, type ProposalStatus } from '../proposal/statuses.ts';

/**
 * The query of the management dashboard and of its export (`GET /v1/proposals/dashboard` and
 * `/dashboard/rows`), read once for both: the filters the export shares, and the dashboard's
 * own `compare`, `dim` and `sla`. Pure: `now` comes in; the answer is the filters or the first
 * error in the order of the spec's list of dashboard messages (from, to, their order, the
 * period, compare, origin, correspondent, agent, product, portfolio, entity type, status, dim,
 * sla), so a caller fixing one parameter at a time meets them in that order.
 */

export const DAY_MS = 86_400_000;
export const MAX_PERIOD_DAYS = 366;
export const DEFAULT_PERIOD_DAYS = 30;
/** Spec Limits: each list filter accepts up to 2000 characters. */
export const MAX_LIST_CHARS = 2000;
const OBJECT_ID = /^[0-9a-fA-F]{24}$/;

export const DASHBOARD_DIMS = ['correspondent', 'agent', 'product', 'portfolio', 'origin', 'entityType'] as const;
export type DashboardDim = (typeof DASHBOARD_DIMS)[number];
export const SLA_STATUSES = ['DRAFT', 'IN_ANALYSIS', 'WAITING_CUSTOMER', 'WAITING_OPERATOR'] as const;
export type SlaStatus = (typeof SLA_STATUSES)[number];
export type Sla = Partial<Record<SlaStatus, number>>;
export const DEFAULT_SLA: Readonly<Sla> = { WAITING_OPERATOR: 2, IN_ANALYSIS: 1, WAITING_CUSTOMER: 7 };

/** What the rows and the dashboard filter by. Absent lists filter nothing; instants are UTC ISO. */
export interface DashboardFilters {
  /** Inclusive start (creation date). */
  from: string;
  /** Exclusive end. */
  to: string;
  origin?: ProposalOrigin[];
  correspondentId?: string[];
  agentId?: string[];
  portfolioId?: string[];
  productKey?: string[];
  entityType?: EntityType[];
  status?: ProposalStatus[];
}

export interface DashboardOptions {
  compare: boolean;
  dim: DashboardDim;
  /** The default's three open states with their days, overridden or extended (DRAFT) by the parameter. */
  sla: Sla;
}

/** The raw query: a repeated parameter arrives as an array and reads as its values joined by commas. */
export type DashboardQueryInput = Readonly<Record<string, string | readonly string[] | undefined>>;

export type Parsed<T> = { ok: true; value: T } | { ok: false; message: string };

const BRASILIA = 'America/Sao_Paulo';
const PARTS = new Intl.DateTimeFormat('en-US', { timeZone: BRASILIA, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' });

/** Brasília's offset from UTC at an instant, in ms (negative: -3 h since 2019, -2 h in old summers). */
function brasiliaOffsetMs(instant: number): number {
  const p = Object.fromEntries(PARTS.formatToParts(new Date(instant)).map((x) => [x.type, x.value]));
  const local = Date.UTC(+p.year!, +p.month! - 1, +p.day!, +p.hour!, +p.minute!, +p.second!);
  return local - Math.floor(instant / 1000) * 1000;
}

/** The instant a wall-clock time in Brasília names (given as if it were UTC ms). */
export function brasiliaWallToInstant(wallAsUtc: number): number {
  const guess = wallAsUtc - brasiliaOffsetMs(wallAsUtc);
  return wallAsUtc - brasiliaOffsetMs(guess);
}

/** The next midnight in Brasília after `now`: "the end of today", the default `to`. */
export function endOfBrasiliaDay(now: Date): Date {
  const wall = now.getTime() + brasiliaOffsetMs(now.getTime());
  return new Date(brasiliaWallToInstant(Math.floor(wall / DAY_MS) * DAY_MS + DAY_MS));
}

const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

/**
 * An ISO 8601 date or date-time. Without an offset (a day alone included) it is a wall-clock
 * time in Brasília, where the dashboard's days are counted; an impossible date (02-30) is refused.
 */
export function parseIsoInstant(text: string): Date | null {
  const m = ISO.exec(text);
  if (!m) return null;
  const [, y, mo, d, h = '00', mi = '00', s = '00', fraction = '', zone] = m;
  const wall = Date.UTC(+y!, +mo! - 1, +d!, +h, +mi, +s, Math.floor(Number(`0${fraction || '.0'}`) * 1000));
  const check = new Date(wall);
  if (check.getUTCFullYear() !== +y! || check.getUTCMonth() !== +mo! - 1 || check.getUTCDate() !== +d! || +h > 23 || +mi > 59 || +s > 59) return null;
  if (!zone) return new Date(brasiliaWallToInstant(wall));
  if (zone === 'Z') return check;
  const sign = zone[0] === '-' ? -1 : 1;
  const digits = zone.slice(1).replace(':', '');
  const hours = +digits.slice(0, 2);
  const minutes = +digits.slice(2);
  if (hours > 23 || minutes > 59) return null;
  return new Date(wall - sign * (hours * 60 + minutes) * 60_000);
}

const single = (value: string | readonly string[] | undefined): string | undefined | null => (typeof value === 'string' || value === undefined ? value : null);
const joined = (value: string | readonly string[] | undefined): string | undefined => (typeof value === 'string' || value === undefined ? value : value.join(','));

/**
 * A comma-separated list: empty items skipped, repeats kept once, order kept. An empty
 * parameter filters nothing; more than 2000 characters or a value `valid` refuses is an error.
 */
function list<T extends string>(raw: string | readonly string[] | undefined, valid: (item: string) => boolean): T[] | undefined | null {
  const text = joined(raw);
  if (text === undefined) return undefined;
  if (text.length > MAX_LIST_CHARS) return null;
  const items = [
    ...new Set(
      text
        .split(',')
        .map((item) => item.trim())
        .filter(Boolean),
    ),
  ];
  if (!items.every(valid)) return null;
  return items.length ? (items as T[]) : undefined;
}

const oneOf = (values: readonly string[]) => (item: string) => values.includes(item);
const objectId = (item: string) => OBJECT_ID.test(item);

/** `STATUS:days,...` with statuses DRAFT, IN_ANALYSIS, WAITING_CUSTOMER, WAITING_OPERATOR and days of up to 3 digits. */
export function parseSla(raw: string | readonly string[] | undefined): Sla | null {
  const text = joined(raw);
  if (text === undefined || text.trim() === '') return { ...DEFAULT_SLA };
  const sla: Sla = { ...DEFAULT_SLA };
  for (const pair of text.split(',')) {
    const m = /^\s*([A-Z_]+):(\d{1,3})\s*$/.exec(pair);
    if (!m || !(SLA_STATUSES as readonly string[]).includes(m[1]!)) return null;
    sla[m[1] as SlaStatus] = Number(m[2]);
  }
  return sla;
}

type Step = { extra: boolean; run: (query: DashboardQueryInput, into: Partial<DashboardFilters & DashboardOptions>) => string | null };

/** The period: from, to, their order and the 366 days, resolved against `now`. */
function period(query: DashboardQueryInput, now: Date, into: Partial<DashboardFilters>): string | null {
  const fromText = single(query.from);
  const toText = single(query.to);
  const from = fromText === undefined ? undefined : fromText === null ? null : parseIsoInstant(fromText);
  if (from === null) return Messages.dashboardBadFrom;
  const to = toText === undefined ? endOfBrasiliaDay(now) : toText === null ? null : parseIsoInstant(toText);
  if (to === null) return Messages.dashboardBadTo;
  const start = from ?? new Date(to.getTime() - DEFAULT_PERIOD_DAYS * DAY_MS);
  if (to.getTime() <= start.getTime()) return Messages.dashboardToBeforeFrom;
  if (to.getTime() - start.getTime() > MAX_PERIOD_DAYS * DAY_MS) return Messages.dashboardMaxPeriod;
  into.from = start.toISOString();
  into.to = to.toISOString();
  return null;
}

function listStep<K extends keyof DashboardFilters>(key: K, valid: (item: string) => boolean, message: string): Step {
  return {
    extra: false,
    run(query, into) {
      const items = list(query[key], valid);
      if (items === null) return message;
      if (items) (into as Record<string, unknown>)[key] = items;
      return null;
    },
  };
}

const STEPS: readonly Step[] = [
  {
    extra: true,
    run(query, into) {
      const text = single(query.compare);
      if (text === null || (text !== undefined && text !== 'true' && text !== 'false')) return DashboardMessages.badCompare;
      into.compare = text !== 'false';
      return null;
    },
  },
  listStep('origin', oneOf(PROPOSAL_ORIGINS), DashboardMessages.badOrigin),
  listStep('correspondentId', objectId, DashboardMessages.badCorrespondent),
  listStep('agentId', objectId, DashboardMessages.badAgent),
  listStep('productKey', (item) => PRODUCT_KEY_PATTERN.test(item), Messages.invalidProduct),
  listStep('portfolioId', objectId, DashboardMessages.badPortfolio),
  listStep('entityType', oneOf(ENTITY_TYPES), DashboardMessages.badEntityType),
  listStep('status', oneOf(PROPOSAL_STATUSES), DashboardMessages.badStatus),
  {
    extra: true,
    run(query, into) {
      const text = single(query.dim);
      if (text === null || (text !== undefined && !(DASHBOARD_DIMS as readonly string[]).includes(text))) return DashboardMessages.badDim;
      into.dim = (text ?? 'correspondent') as DashboardDim;
      return null;
    },
  },
  {
    extra: true,
    run(query, into) {
      const sla = parseSla(query.sla);
      if (!sla) return DashboardMessages.badSla;
      into.sla = sla;
      return null;
    },
  },
];

function parse(query: DashboardQueryInput, now: Date, withOptions: boolean): Parsed<DashboardFilters & Partial<DashboardOptions>> {
  const into: Partial<DashboardFilters & DashboardOptions> = {};
  const periodError = period(query, now, into);
  if (periodError) return { ok: false, message: periodError };
  for (const step of STEPS) {
    if (step.extra && !withOptions) continue;
    const message = step.run(query, into);
    if (message) return { ok: false, message };
  }
  return { ok: true, value: into as DashboardFilters & Partial<DashboardOptions> };
}

/** The export's query: the shared filters only (compare, dim and sla do not change rows, so they are not read). */
export const parseDashboardFilters = (query: DashboardQueryInput, now: Date): Parsed<DashboardFilters> => parse(query, now, false);

/** The dashboard's query: the shared filters and compare, dim, sla, each error in the spec's order. */
export const parseDashboardQuery = (query: DashboardQueryInput, now: Date) => parse(query, now, true) as Parsed<DashboardFilters & DashboardOptions>;

/**
 * One text per distinct set of filters (lists sorted, keys in a fixed order): the key of the
 * dashboard's cache and of the export's single flight, so `origin=API,CRM` and `origin=CRM,API` meet.
 */
export function filtersKey(filters: DashboardFilters, extra: Record<string, unknown> = {}): string {
  const lists = (['origin', 'correspondentId', 'agentId', 'portfolioId', 'productKey', 'entityType', 'status'] as const).map((key) => [key, filters[key] ? [...filters[key]!].sort() : null]);
  return JSON.stringify([filters.from, filters.to, lists, Object.entries(extra).sort(([a], [b]) => a.localeCompare(b))]);
}
