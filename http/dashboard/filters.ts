import Type, { type Static } from 'typebox';
import {
  DASHBOARD_DIMS,
  parseDashboardFilters,
  parseDashboardQuery,
  SLA_STATUSES,
  type DashboardFilters,
  type DashboardOptions,
  type DashboardQueryInput,
  type Parsed,
} from '../../domain/dashboard/filters.ts';
import { PROPOSAL_ORIGINS } from '../../domain/proposal/events.ts';
import { PROPOSAL_STATUSES } from '../../domain/proposal/statuses.ts';
import { HttpError } from '../errors.ts';

/**
 * The query schemas of the dashboard and its export, for the OpenAPI document. Every value is
 * taken as text (a repeated parameter as its list) and read by domain/dashboard/filters.ts,
 * so each bad parameter answers the spec's own 400 text, in the spec's order, instead of a
 * generic schema message.
 */
const Text = (description: string) => Type.Optional(Type.Union([Type.String(), Type.Array(Type.String())], { description }));
const List = (description: string) => Text(`comma separated (or repeated); up to 2000 characters; ${description}`);

export const DashboardFilterQuery = Type.Object({
  from: Text('ISO 8601 inclusive start of the creation period; without an offset, Brasília time; default 30 days before `to`'),
  to: Text('ISO 8601 exclusive end; without an offset, Brasília time; default the end of today in Brasília; at most 366 days after `from`'),
  origin: List(`${PROPOSAL_ORIGINS.join(', ')} (CHANNEL counts only as CHANNEL)`),
  correspondentId: List('correspondent ids (24 hex)'),
  agentId: List('agent ids (24 hex)'),
  portfolioId: List('portfolio ids (24 hex)'),
  productKey: List('product keys'),
  entityType: List('COMPANY, PERSON'),
  status: List(PROPOSAL_STATUSES.join(', ')),
});

export const DashboardQuery = Type.Object({
  ...DashboardFilterQuery.properties,
  compare: Text('true (default) or false: false answers the prev blocks zeroed'),
  dim: Text(`breakdown dimension: ${DASHBOARD_DIMS.join(', ')}; default correspondent`),
  sla: Text(`STATUS:days comma separated (${SLA_STATUSES.join(', ')}; days up to 3 digits); default WAITING_OPERATOR:2,IN_ANALYSIS:1,WAITING_CUSTOMER:7`),
});

/** The period a reply echoes with the defaults applied. */
export const DashboardPeriodSchema = {
  from: Type.String({ format: 'date-time', description: 'inclusive start, defaults applied' }),
  to: Type.String({ format: 'date-time', description: 'exclusive end, defaults applied' }),
};

const orRefuse = <T>(parsed: Parsed<T>): T => {
  if (!parsed.ok) throw new HttpError(400, parsed.message);
  return parsed.value;
};

/** The export's filters, or 400 with the first bad parameter's text. */
export const dashboardFiltersOf = (query: Static<typeof DashboardFilterQuery>, now: Date): DashboardFilters => orRefuse(parseDashboardFilters(query as DashboardQueryInput, now));

/** The dashboard's filters and options, or 400 with the first bad parameter's text. */
export const dashboardQueryOf = (query: Static<typeof DashboardQuery>, now: Date): DashboardFilters & DashboardOptions => orRefuse(parseDashboardQuery(query as DashboardQueryInput, now));
