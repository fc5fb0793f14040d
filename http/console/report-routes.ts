import { PassThrough } from 'node:stream';
import Type from 'typebox';
import { followReport } from '../../application/report/live-feed.ts';
import { recordManualAnalysis, requestReport } from '../../application/report/commands.ts';
import { replyAfterWrite } from '../../application/read-your-writes.ts';
import { reportStream } from '../../domain/report/events.ts';
import { stripMask, type DocumentType } from '../../domain/shared/document.ts';
import { positionToString } from '../../platform/eventstore/port.ts';
import { listPolicies } from '../../projections/credit-policy/queries.ts';
import { CREDIT_POLICY_PROJECTION } from '../../projections/credit-policy/projection.ts';
import { REPORT_PROJECTION } from '../../projections/report/projection.ts';
import { listReports } from '../../projections/report/queries.ts';
import { allows, checkGate, Gates } from '../gates.ts';
import { readReport } from '../report/read-routes.ts';
import { ManualAnalysisBody } from '../report/schemas.ts';
import { validateBody } from '../validation.ts';
import { ObjectIdSchema, type Reply, type RouteSpec } from '../route.ts';
import { htmlReply, seeOther } from './html.ts';
import { reportFragment, reportListPage, reportPage, type ListPageData } from './report-html.ts';
import { consoleRoute, field, pageHtml, type SignedIn } from './signed-in.ts';

/** How often an idle live page gets a comment line, so proxies do not close it. */
const HEARTBEAT_MS = 25_000;
const PAGE_SIZE = 50;

async function listPage(input: SignedIn, typed?: ListPageData['typed'], message?: string): Promise<string> {
  const query = input.ctx.query;
  const filter = { document: typeof query.documento === 'string' ? query.documento : '', status: typeof query.status === 'string' ? query.status : '' };
  const { organizationId } = input.principal;
  const { total, rows } = await listReports(
    input.app.db,
    organizationId,
    { document: stripMask(filter.document) || undefined, statuses: filter.status ? [filter.status] : undefined },
    { offset: 0, limit: PAGE_SIZE },
  );
  const policies = (await listPolicies(input.app.db, organizationId)).map((p) => ({ id: p.id, name: p.content.name, documentType: p.content.documentType }));
  const canCreate = allows(Gates.reportCreate, input.principal);
  const content = reportListPage({ rows, total, filter, policies, csrf: input.csrf, canCreate, typed, message });
  return pageHtml('Relatórios', input, content);
}

/** One Server-Sent Event: every line of the data its own `data:` line, as the format asks. */
const sseEvent = (id: string, event: string, data: string) =>
  `id: ${id}\nevent: ${event}\n${data
    .split('\n')
    .map((line) => `data: ${line}`)
    .join('\n')}\n\n`;

/**
 * The report page's live stream: the fragment now (so a page that reconnects with Last-Event-ID,
 * or missed an event between its render and its connection, is current at once), then again each
 * time the report's stream moves, once the read model shows that move. Renders never overlap and
 * a burst of events renders once more at most.
 */
async function liveStream(input: SignedIn, reportId: string): Promise<Reply> {
  const { app, ctx, principal } = input;
  const render = async () => reportFragment(await readReport(app, principal.organizationId, reportId));
  const first = await render();
  const events = await app.store.readStream(reportStream(reportId));
  const stream = new PassThrough();
  const unwatch = followReport(
    app,
    reportId,
    async (position) => void stream.write(sseEvent(positionToString(position), 'relatorio', await render())),
    () => stream.end(),
  );
  const heartbeat = setInterval(() => stream.write(': ainda aqui\n\n'), HEARTBEAT_MS);
  const close = () => {
    clearInterval(heartbeat);
    unwatch();
    stream.end();
  };
  ctx.req.once('close', close);
  stream.once('end', () => clearInterval(heartbeat));
  stream.write(`retry: 2000\n\n${sseEvent(events.length ? positionToString(events[events.length - 1]!.position) : '0', 'relatorio', first)}`);
  return { status: 200, stream, headers: { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', 'x-accel-buffering': 'no' } };
}

const Params = Type.Object({ id: ObjectIdSchema() });

/** The first manual decision, or redoing it, each with its own gate as in the API. */
const analysisGate = (again: boolean) => (again ? Gates.reportReanalyze : Gates.reportAnalyze);

async function reportPageHtml(input: SignedIn, message?: string): Promise<string> {
  const report = await readReport(input.app, input.principal.organizationId, input.params.id!);
  const again = report.analystId !== null;
  const decidable = report.reportProgress.isFinalized && allows(analysisGate(again), input.principal);
  const content = reportPage(report.id, reportFragment(report), { analysis: decidable ? { again, csrf: input.csrf, message } : null });
  return pageHtml(`Relatório ${report.document}`, input, content, ['htmx.min.js', 'sse.min.js'], report.sandbox);
}

/** The pages show reports and name their credit policies. */
const reads = [REPORT_PROJECTION, CREDIT_POLICY_PROJECTION];

export const reportPageRoutes: RouteSpec[] = [
  consoleRoute({
    method: 'get',
    path: '/console/relatorios',
    summary: "The organization's reports (HTML): filters by document and status, and the form that requests one",
    gate: Gates.reportsRead,
    reads,
    handle: async (input) => htmlReply(200, await listPage(input)),
  }),
  consoleRoute({
    method: 'post',
    path: '/console/relatorios',
    summary: 'Request a report from the console (urlencoded `documento`, `tipo`, `politica`, `csrf`)',
    gate: Gates.reportCreate,
    redirects: "to the new report's page",
    errors: [400, 404, 409, 422],
    async handle(input) {
      const type = field(input.body, 'tipo') === 'cpf' ? 'cpf' : 'cnpj';
      const { events } = await requestReport(input.app, input.principal, {
        document: field(input.body, 'documento'),
        type: type as DocumentType,
        policyId: field(input.body, 'politica'),
        externalId: null,
      });
      const reportId = (events[0]!.data as { reportId: string }).reportId;
      return seeOther(`/console/relatorios/${reportId}`);
    },
    // Creating and reading reports take the same modules and permissions (Gates): the list can be shown again.
    form: (input, message) => listPage(input, { document: field(input.body, 'documento'), type: field(input.body, 'tipo'), policyId: field(input.body, 'politica') }, message),
  }),
  consoleRoute({
    method: 'get',
    path: '/console/relatorios/:id',
    summary: "A report's page (HTML): status, the credit policy's explanation, sections, the committee; it updates itself as the report moves",
    gate: Gates.reportsRead,
    params: Params,
    errors: [404, 409],
    reads,
    handle: async (input) => htmlReply(200, await reportPageHtml(input)),
  }),
  consoleRoute({
    method: 'post',
    path: '/console/relatorios/:id/analise',
    summary: 'Record the manual analysis of a report, or redo it (urlencoded `decisao` aprovar|negar, `comentario`, `csrf`)',
    description: "The first decision needs the gate of POST /report/analyze, a later one that of POST /report/re-analyze; refusals come back on the page with the API's message.",
    gate: Gates.reportsRead,
    params: Params,
    redirects: "to the report's page",
    errors: [400, 404, 409],
    reads,
    async handle(input) {
      const report = await readReport(input.app, input.principal.organizationId, input.params.id!);
      const again = report.analystId !== null;
      checkGate(analysisGate(again), input.principal);
      const decision = field(input.body, 'decisao');
      const body = validateBody(ManualAnalysisBody, { id: report.id, approved: decision === 'aprovar' ? true : decision === 'negar' ? false : undefined, commentary: field(input.body, 'comentario') });
      const written = await recordManualAnalysis(input.app, input.principal, again ? 'MANUAL_REANALYSIS' : 'MANUAL_ANALYSIS', body);
      // The report's page declares what it reads: it waits for this decision.
      return replyAfterWrite(input.app, input.principal, written, () => seeOther(`/console/relatorios/${report.id}`));
    },
    form: reportPageHtml,
  }),
  consoleRoute({
    method: 'get',
    path: '/console/relatorios/:id/ao-vivo',
    summary: "The report page's live updates (Server-Sent Events, event `relatorio`: the page's fragment); resumes with Last-Event-ID",
    gate: Gates.reportsRead,
    params: Params,
    files: ['text/event-stream'],
    errors: [404, 409],
    handle: (input) => liveStream(input, input.params.id!),
  }),
];
