import Type from 'typebox';
import { addRecipient, cancelCollection, createCollection, linkIntake, reissueLink, reviewItem, sendCollection, waiveItem } from '../../application/collection/commands.ts';
import { revokeConsent } from '../../application/collection/consent/commands.ts';
import type { Written } from '../../application/command-handler.ts';
import { rememberWrite, type Caller } from '../../application/read-your-writes.ts';
import type { AppContext } from '../../application/context.ts';
import type { CollectionState } from '../../domain/collection/state.ts';
import { DomainError } from '../../domain/shared/errors.ts';
import { Messages } from '../../domain/shared/messages.ts';
import { COLLECTION_TEMPLATE_PROJECTION } from '../../projections/collection-template/projection.ts';
import { REGISTRY_PROJECTION } from '../../projections/registry/projection.ts';
import { COLLECTION_PROJECTION } from '../../projections/collection/projection.ts';
import { collectionDetail, listCollections, operatorQueue } from '../../projections/collection/queries.ts';
import { COLLECTION_TRAIL_PROJECTION } from '../../projections/collection/trail-projection.ts';
import { recentTrail } from '../../projections/collection/trail-queries.ts';
import { registrySummary } from '../../projections/registry/queries.ts';
import { Gates } from '../gates.ts';
import { route, type RouteTable } from '../route.ts';
import { presentDetail, presentItem, presentSummary } from './present.ts';
import {
  AddRecipientBody,
  CancelBody,
  CollectionParams,
  CreateBody,
  CreatedSchema,
  DetailSchema,
  ItemParams,
  LinkReplySchema,
  ListQuery,
  ListSchema,
  QueueQuery,
  QueueSchema,
  RecipientParams,
  ReviewBody,
  WaiveBody,
} from './schemas.ts';

const gate = Gates.collections;
const TRAIL_IN_DETAIL = 100;

async function detailOf(app: AppContext, state: CollectionState) {
  const id = state.collectionId!;
  const [registry, trail] = await Promise.all([registrySummary(app.db, state.organizationId!, state.registryId), recentTrail(app.db, state.organizationId!, id, TRAIL_IN_DETAIL)]);
  return presentDetail(state, registry, trail);
}

/** After a command: the state comes from the stream (never behind); the trail is read once its projection caught up. */
async function written(app: AppContext, caller: Caller, result: Written<CollectionState>) {
  rememberWrite(app, caller, result.position);
  // Kept: the reply's trail exists only in its read model, and a recipient's link handed out opens through the collections' one.
  await app.readYourWrites([COLLECTION_PROJECTION, COLLECTION_TRAIL_PROJECTION], result.position);
  return detailOf(app, result.state);
}

const reads = [COLLECTION_PROJECTION, COLLECTION_TRAIL_PROJECTION];

const Detail = { 200: DetailSchema };
const itemErrors = [404, 409] as const;

export const collectionRoutes: RouteTable = {
  module: 'collection',
  description: 'Collections: requests to end customers for documents, with recipients, items, operator decisions and an audit trail',
  routes: [
    route({
      method: 'post',
      path: '/v1/collections',
      summary: 'Create a collection from a template or ad hoc items, for a registry or a subject; send it or keep a DRAFT',
      description: "Each recipient's raw link is in `links`, returned only here (and on reissue). Without registryId the subject's registry is found or created.",
      gate,
      body: CreateBody,
      responses: { 201: CreatedSchema },
      // The template and the registry are looked up in their read models.
      reads: [COLLECTION_TEMPLATE_PROJECTION, REGISTRY_PROJECTION],
      // 403: an item of a module the organization did not contract (IDENTITY without kyc).
      errors: [403, 404],
      async handle({ app, principal, body }) {
        const result = await createCollection(app, principal, body);
        return { status: 201, body: { ...(await written(app, principal, result)), links: result.links } };
      },
    }),
    route({
      method: 'get',
      path: '/v1/collections',
      summary: "The organization's collections, newest first",
      gate,
      query: ListQuery,
      responses: { 200: ListSchema },
      reads,
      async handle({ app, principal, query }) {
        const page = await listCollections(app.db, principal.organizationId, query);
        return { total: page.total, skip: query.skip, take: query.take, items: page.items.map(presentSummary) };
      },
    }),
    route({
      method: 'get',
      path: '/v1/collections/operator-queue',
      summary: 'Items waiting for a human decision (AWAITING_OPERATOR, MANUAL_REVIEW), oldest first',
      gate,
      query: QueueQuery,
      responses: { 200: QueueSchema },
      reads,
      async handle({ app, principal, query }) {
        const page = await operatorQueue(app.db, principal.organizationId, query);
        const items = page.items.map(({ collection, item }) => ({ collection: presentSummary(collection), item: presentItem(collection, item) }));
        return { total: page.total, skip: query.skip, take: query.take, items };
      },
    }),
    route({
      method: 'get',
      path: '/v1/collections/:id',
      summary: 'A collection with its items, recipients, registry summary and the 100 most recent trail entries',
      gate,
      params: CollectionParams,
      responses: Detail,
      errors: [404],
      reads,
      async handle({ app, principal, params }) {
        const state = await collectionDetail(app.db, principal.organizationId, params.id);
        if (!state) throw new DomainError('not_found', Messages.collectionNotFound);
        return detailOf(app, state);
      },
    }),
    route({
      method: 'post',
      path: '/v1/collections/:id/send',
      summary: 'Send a DRAFT collection: recipients are notified and the deadline starts',
      gate,
      params: CollectionParams,
      body: Type.Object({}),
      responses: Detail,
      errors: itemErrors,
      async handle({ app, principal, params }) {
        return written(app, principal, await sendCollection(app, principal, params.id));
      },
    }),
    route({
      method: 'post',
      path: '/v1/collections/:id/cancel',
      summary: 'Cancel a collection: links stop working, no reminder leaves, the reason goes to the trail',
      gate,
      params: CollectionParams,
      body: CancelBody,
      responses: Detail,
      errors: [404, 409, 502],
      async handle({ app, principal, params, body }) {
        return written(app, principal, await cancelCollection(app, principal, params.id, body.reason ?? null));
      },
    }),
    route({
      method: 'post',
      path: '/v1/collections/:id/link-intake',
      summary: "Link a public form's intake to its registry: what the visitor sent (answers, consents, identity checks, files) reaches the registry and the input data",
      description:
        'Only for a collection whose `intake.status` is UNLINKED (a public form opened it for a CPF or CNPJ whose registry already existed): the operator vouches that the visitor is that person. Recorded in the trail as INTAKE_LINKED with who linked it. 409 for a collection that is not an intake or is already linked (or created its own registry).',
      gate,
      params: CollectionParams,
      body: Type.Object({}),
      responses: Detail,
      errors: [404, 409],
      async handle({ app, principal, params }) {
        return written(app, principal, await linkIntake(app, principal, params.id));
      },
    }),
    route({
      method: 'post',
      path: '/v1/collections/:id/items/:itemId/review',
      summary: 'Operator decision on an item waiting for one: approve, or reject asking the recipient for a new file',
      gate,
      params: ItemParams,
      body: ReviewBody,
      responses: Detail,
      errors: itemErrors,
      async handle({ app, principal, params, body }) {
        return written(app, principal, await reviewItem(app, principal, params.id, params.itemId, body.decision, body.reason ?? null));
      },
    }),
    route({
      method: 'post',
      path: '/v1/collections/:id/items/:itemId/waive',
      summary: 'Waive an item: it counts as resolved',
      gate,
      params: ItemParams,
      body: WaiveBody,
      responses: Detail,
      errors: itemErrors,
      async handle({ app, principal, params, body }) {
        return written(app, principal, await waiveItem(app, principal, params.id, params.itemId, body.reason ?? null));
      },
    }),
    route({
      method: 'post',
      path: '/v1/collections/:id/items/:itemId/consent/revoke',
      summary: "Record the person's revocation of a CONSENT item's accepted term",
      description:
        'LGPD art. 8 §5: consent is revocable at any time, closed collections included. For a revocation the person asked for outside their link (they can also revoke on their page while the link is open). ' +
        'CONSENT_REVOKED in the trail, the item keeps its acceptance with `consent.revokedAt`, the policy input kyc.consentimento_<type> turns false, ' +
        'collection.consent.revoked and optin.updated (status REVOKED) are sent. 400 for an item that is not a CONSENT; 409 when the term was never accepted or is already revoked.',
      gate,
      params: ItemParams,
      body: WaiveBody,
      responses: Detail,
      errors: itemErrors,
      async handle({ app, principal, params, body }) {
        return written(app, principal, await revokeConsent(app, principal, params.id, params.itemId, body.reason ?? null));
      },
    }),
    route({
      method: 'post',
      path: '/v1/collections/:id/recipients',
      summary: 'Add a recipient (their raw link is returned only now)',
      gate,
      params: CollectionParams,
      body: AddRecipientBody,
      responses: { 201: LinkReplySchema },
      errors: itemErrors,
      async handle({ app, principal, params, body }) {
        const result = await addRecipient(app, principal, params.id, body);
        return { status: 201, body: { collection: await written(app, principal, result), link: result.link } };
      },
    }),
    route({
      method: 'post',
      path: '/v1/collections/:id/recipients/:recipientId/reissue-link',
      summary: "Replace a recipient's link: the new raw link is returned only now, the previous one stops working",
      gate,
      params: RecipientParams,
      body: Type.Object({}),
      responses: { 200: LinkReplySchema },
      errors: itemErrors,
      async handle({ app, principal, params }) {
        const result = await reissueLink(app, principal, params.id, params.recipientId);
        return { collection: await written(app, principal, result), link: result.link };
      },
    }),
  ],
};
