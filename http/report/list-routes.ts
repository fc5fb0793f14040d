import { statusObject } from '../../domain/report/statuses.ts';
import { DOCUMENT_TYPES, DOCUMENT_LENGTH, hasValidCheckDigits, stripMask } from '../../domain/shared/document.ts';
import { Messages } from '../../domain/shared/messages.ts';
import { listReports, type ReportSummaryRow } from '../../projections/report/queries.ts';
import { HttpError } from '../errors.ts';
import { REPORT_PROJECTION } from '../../projections/report/projection.ts';
import { Gates } from '../gates.ts';
import { route, type RouteTable } from '../route.ts';
import { ISO_INSTANT_PATTERN, REPORT_LIST_MAX_PAGE, REPORT_LIST_PAGE_SIZE, ReportListQuery, ReportPageSchema } from './schemas.ts';

/** Brazil has had no daylight saving time since 2019, so Brasília time is a fixed UTC-3. */
const BRASILIA_OFFSET_MINUTES = -180;
const ISO_INSTANT = new RegExp(ISO_INSTANT_PATTERN);

/**
 * An instant from the text ISO_INSTANT_PATTERN accepted, or null when it names no real time
 * (30 February, 25:00). A day, or a time without a zone, is read in Brasília time, as the spec's
 * dashboard counts days.
 */
function parseInstant(text: string): Date | null {
  const m = ISO_INSTANT.exec(text)!;
  const [year, month, day, hour = 0, minute = 0, second = 0] = m.slice(1, 7).map((part) => (part === undefined ? undefined : Number(part))) as number[];
  const millis = m[7] ? Number(m[7].slice(0, 3).padEnd(3, '0')) : 0;
  const zone = m[8];
  let offset = BRASILIA_OFFSET_MINUTES;
  if (zone === 'Z') offset = 0;
  else if (zone) {
    const digits = zone.slice(1).replace(':', '');
    offset = (zone[0] === '-' ? -1 : 1) * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2)));
  }
  const local = new Date(Date.UTC(year!, month! - 1, day!, hour, minute, second, millis));
  const sameFields =
    local.getUTCFullYear() === year &&
    local.getUTCMonth() === month! - 1 &&
    local.getUTCDate() === day &&
    local.getUTCHours() === hour &&
    local.getUTCMinutes() === minute &&
    local.getUTCSeconds() === second;
  return sameFields ? new Date(local.getTime() - offset * 60_000) : null;
}

/** A document to search by: digits of a valid CPF or CNPJ, whatever the mask. */
function documentFilter(text: string): string {
  const digits = stripMask(text);
  const type = DOCUMENT_TYPES.find((t) => DOCUMENT_LENGTH[t] === digits.length);
  if (!type || !hasValidCheckDigits(type, digits)) throw new HttpError(400, Messages.invalidDocument);
  return digits;
}

function period(fromText: string | undefined, toText: string | undefined): { from?: Date; to?: Date } {
  const from = fromText === undefined ? undefined : parseInstant(fromText);
  const to = toText === undefined ? undefined : parseInstant(toText);
  const refused = [from === null && Messages.dashboardBadFrom, to === null && Messages.dashboardBadTo].filter(Boolean);
  if (refused.length) throw new HttpError(400, refused.join(','));
  if (from && to && to.getTime() <= from.getTime()) throw new HttpError(400, Messages.dashboardToBeforeFrom);
  return { from: from ?? undefined, to: to ?? undefined };
}

function presentSummary(r: ReportSummaryRow) {
  return {
    id: r.id,
    status: statusObject(r.status),
    policyStatus: r.policy_status,
    policyId: r.policy_id,
    policyVersion: r.policy_version,
    policyName: r.policy_name,
    document: r.document,
    type: r.document_type,
    externalId: r.external_id,
    score: r.score,
    reportProgress: { isFinalized: r.is_finalized, finalizedAt: r.finalized_at },
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

/** In a table of its own (module report), beside routes.ts, so the list grows without touching the reads. */
export const reportListRoutes: RouteTable = {
  module: 'report',
  routes: [
    route({
      method: 'get',
      path: '/v2/report',
      summary: "List the organization's reports, newest first, filtered and paged",
      description:
        `page from 1 (at most ${REPORT_LIST_MAX_PAGE}); pageSize ${REPORT_LIST_PAGE_SIZE.default} by default, 1 to ${REPORT_LIST_PAGE_SIZE.max}. ` +
        'externalId: exact; document: CPF or CNPJ, masked or not (400 `Documento inválido.`); status: comma separated report statuses; ' +
        'from (inclusive) and to (exclusive): creation time, ISO 8601, a day or a time without zone in Brasília time. ' +
        'To walk every page while reports are being created, keep `to` fixed: newer reports then cannot shift the pages.',
      gate: Gates.reportsRead,
      query: ReportListQuery,
      responses: { 200: ReportPageSchema },
      reads: [REPORT_PROJECTION],
      async handle({ app, principal, query }) {
        const filter = {
          externalId: query.externalId,
          document: query.document === undefined ? undefined : documentFilter(query.document),
          statuses: query.status?.split(',').map((s) => s.trim().toUpperCase()),
          ...period(query.from, query.to),
        };
        const offset = (query.page - 1) * query.pageSize;
        const { total, rows } = await listReports(app.db, principal.organizationId, filter, { offset, limit: query.pageSize });
        return {
          total,
          page: query.page,
          pageSize: query.pageSize,
          nextPage: offset + rows.length < total && query.page < REPORT_LIST_MAX_PAGE ? query.page + 1 : null,
          items: rows.map(presentSummary),
        };
      },
    }),
  ],
};
