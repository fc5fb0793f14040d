import Type from 'typebox';
import { linkIntake } from '../../application/collection/commands.ts';
import { COLLECTION_STATUSES, type CollectionStatus } from '../../domain/collection/enums.ts';
import { Messages } from '../../domain/shared/messages.ts';
import { replyAfterWrite } from '../../application/read-your-writes.ts';
import { COLLECTION_PROJECTION } from '../../projections/collection/projection.ts';
import { collectionDetail, listCollections } from '../../projections/collection/queries.ts';
import { COLLECTION_TRAIL_PROJECTION } from '../../projections/collection/trail-projection.ts';
import { trailPage } from '../../projections/collection/trail-queries.ts';
import { trailExportScope, trailExportStream } from '../collection/trail-export.ts';
import { HttpError } from '../errors.ts';
import { Gates } from '../gates.ts';
import { ObjectIdSchema, type RouteSpec } from '../route.ts';
import { collectionListPage, collectionPage } from './collection-html.ts';
import { htmlReply, seeOther } from './html.ts';
import { consoleRoute, page, pageHtml, type SignedIn } from './signed-in.ts';
import { holdsSandboxResult } from '../../domain/collection/provenance.ts';

const Params = Type.Object({ id: ObjectIdSchema() });
/** How much of the trail the page lists; the verification reads all of it. */
const TRAIL_SHOWN = 200;
const gate = Gates.collections;

/** The collection's page, with `message` above the intake's button when a link was refused. */
async function collectionPageHtml(input: SignedIn, message?: string): Promise<string> {
  const { organizationId } = input.principal;
  const state = await collectionDetail(input.app.db, organizationId, input.params.id!);
  if (!state) throw new HttpError(404, Messages.collectionNotFound);
  const trail = (await trailPage(input.app.db, organizationId, input.params.id!, 0, TRAIL_SHOWN)) ?? { total: 0, entries: [] };
  return pageHtml(`Coleta de ${state.subject.name}`, input, collectionPage(state, trail, input.csrf, message), ['trilha.js'], holdsSandboxResult(state));
}

export const collectionPageRoutes: RouteSpec[] = [
  consoleRoute({
    method: 'get',
    path: '/console/coletas',
    summary: "The organization's collections (HTML), newest first, filtered by status",
    gate,
    errors: [404],
    async handle(input) {
      const asked = typeof input.ctx.query.status === 'string' ? input.ctx.query.status : '';
      const status = (COLLECTION_STATUSES as readonly string[]).includes(asked) ? asked : '';
      const { total, items } = await listCollections(input.app.db, input.principal.organizationId, { ...(status && { status: status as CollectionStatus }), skip: 0, take: 50 });
      return page(200, 'Coletas', input, collectionListPage(items, total, status));
    },
  }),
  consoleRoute({
    method: 'get',
    path: '/console/coletas/:id',
    summary: 'A collection (HTML): its items, its audit trail, and a button that verifies the chain in the browser',
    gate,
    params: Params,
    errors: [404],
    reads: [COLLECTION_PROJECTION, COLLECTION_TRAIL_PROJECTION],
    async handle(input) {
      return htmlReply(200, await collectionPageHtml(input));
    },
  }),
  consoleRoute({
    method: 'post',
    path: '/console/coletas/:id/vincular',
    summary: "Link a public form's intake to its registry from the console (urlencoded `csrf`), as POST /v1/collections/{id}/link-intake does",
    gate,
    params: Params,
    redirects: "to the collection's page",
    errors: [404, 409],
    async handle(input) {
      const written = await linkIntake(input.app, input.principal, input.params.id!);
      // The collection's page declares what it reads: it waits for this write.
      return replyAfterWrite(input.app, input.principal, written, () => seeOther(`/console/coletas/${input.params.id!}`));
    },
    form: collectionPageHtml,
  }),
  consoleRoute({
    method: 'get',
    path: '/console/coletas/:id/trilha.json',
    summary: "The collection's whole trail as GET /v1/collections/{id}/trail/export gives it in JSON, for the page's verification",
    gate,
    params: Params,
    files: ['application/json'],
    errors: [404],
    async handle(input) {
      const { organizationId } = input.principal;
      const scope = await trailExportScope(input.app, organizationId, input.params.id!);
      if (!scope) throw new HttpError(404, Messages.collectionNotFound);
      return { status: 200, stream: trailExportStream('json', scope), headers: { 'content-type': 'application/json; charset=utf-8' } };
    },
  }),
];
