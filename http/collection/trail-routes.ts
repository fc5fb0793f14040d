import Type from 'typebox';
import { publishedTrailKeys } from '../../application/collection/trail/keys.ts';
import { Messages } from '../../domain/shared/messages.ts';
import { trailPage } from '../../projections/collection/trail-queries.ts';
import { HttpError } from '../errors.ts';
import { Gates } from '../gates.ts';
import { ObjectIdSchema, route, type RouteTable } from '../route.ts';
import { recipientPageRoutes } from './recipient-page.ts';
import { trailExportScope, trailExportStream } from './trail-export.ts';
import { TrailExportQuery, TrailKeysSchema, TrailPageSchema, TrailQuery } from './trail-schemas.ts';

const IdParams = Type.Object({ id: ObjectIdSchema() });

/**
 * The collection's audit trail (docs/collection-trail.md): listing, export with the chain and
 * seals, the keys that verify them; and the recipient's public page, whose actions the trail records.
 */
export const collectionTrailRoutes: RouteTable = {
  module: 'collection',
  routes: [
    route({
      method: 'get',
      path: '/v1/collections/:id/trail',
      summary: "A collection's audit trail, oldest first, each entry with its sequence number, entry hash, chain hash and seal",
      gate: Gates.collections,
      params: IdParams,
      query: TrailQuery,
      responses: { 200: TrailPageSchema },
      errors: [404],
      async handle({ app, principal, params, query }) {
        const page = await trailPage(app.db, principal.organizationId, params.id, query.skip, query.take);
        if (!page) throw new HttpError(404, Messages.collectionNotFound);
        return { total: page.total, skip: query.skip, take: query.take, entries: page.entries };
      },
    }),
    route({
      method: 'get',
      path: '/v1/collections/:id/trail/export',
      summary: 'The whole trail with its hash chain and seals, streamed as JSON (verifiable offline with scripts/verify-trail.ts) or CSV',
      description:
        'Ends at the last entry recorded when the export began. Verify with `npx tsx scripts/verify-trail.ts export.json keys.json`, keys.json being GET /.well-known/collection-trail-keys.',
      gate: Gates.collections,
      params: IdParams,
      query: TrailExportQuery,
      files: ['application/json', 'text/csv'],
      errors: [404],
      async handle({ app, principal, params, query }) {
        const scope = await trailExportScope(app, principal.organizationId, params.id);
        if (!scope) throw new HttpError(404, Messages.collectionNotFound);
        const body = trailExportStream(query.format, scope);
        const type = query.format === 'json' ? 'application/json; charset=utf-8' : 'text/csv; charset=utf-8';
        return { status: 200, body, headers: { 'content-type': type, 'content-disposition': `attachment; filename="trail-${params.id}.${query.format}"` } };
      },
    }),
    route({
      method: 'get',
      path: '/.well-known/collection-trail-keys',
      summary: 'Public keys (Ed25519) that verify trail seals, retired ones included',
      auth: false,
      responses: { 200: TrailKeysSchema },
      async handle({ app }) {
        return { keys: await publishedTrailKeys(app.db) };
      },
    }),
    ...recipientPageRoutes,
  ],
};
