import { createTemplate, reviseTemplate, switchTemplate, templateFromStream } from '../../application/collection-template/commands.ts';
import { replyAfterWrite, type Caller } from '../../application/read-your-writes.ts';
import type { AppContext } from '../../application/context.ts';
import type { Written } from '../../application/command-handler.ts';
import type { CollectionTemplateState } from '../../domain/collection-template/decider.ts';
import { TemplateMessages } from '../../domain/collection-template/messages.ts';
import type { CollectionTemplate } from '../../domain/collection-template/template.ts';
import { DomainError } from '../../domain/shared/errors.ts';
import { CREDIT_POLICY_PROJECTION } from '../../projections/credit-policy/projection.ts';
import { OPERATION_PROJECTION } from '../../projections/operation/projection.ts';
import { COLLECTION_TEMPLATE_PROJECTION } from '../../projections/collection-template/projection.ts';
import { findTemplateBySlug, findTemplateVersion, listTemplates, NO_METRICS, templateMetrics } from '../../projections/collection-template/queries.ts';
import { Gates } from '../gates.ts';
import { route, type RouteTable } from '../route.ts';
import { contentOf, CreateBody, ListQuery, SlugParams, SwitchBody, SwitchReply, TemplatePage, TemplateSchema, UpdateBody, VersionParams } from './schemas.ts';
import { presentTemplate } from './present.ts';

async function present(app: AppContext, organizationId: string, template: CollectionTemplate | null) {
  if (!template) throw new DomainError('not_found', TemplateMessages.templateNotFound);
  const metrics = await templateMetrics(app.db, organizationId, [template.slug]);
  return presentTemplate(template, metrics.get(template.slug) ?? NO_METRICS, app.config.PUBLIC_BASE_URL);
}

/**
 * The template as its stream tells it after a write (its metrics count collections, which a
 * template write leaves alone). The reply still waits for the read model: the template's public
 * form (`/formulario/:id`) is opened by anonymous visitors, who have no write of their own to wait
 * for, so when the reply hands out the address the page must already answer as the write says.
 */
async function written(app: AppContext, caller: Caller, slug: string, result: Written<CollectionTemplateState>) {
  await app.readYourWrites([COLLECTION_TEMPLATE_PROJECTION], result.position);
  return replyAfterWrite(app, caller, result, async () => present(app, caller.organizationId, await templateFromStream(app, caller.organizationId, slug)));
}

const reads = [COLLECTION_TEMPLATE_PROJECTION];
/** A completion's policy or pipeline must exist: checked in their read models. */
const completionReads = [CREDIT_POLICY_PROJECTION, OPERATION_PROJECTION];

const gate = Gates.collections;

export const collectionTemplateRoutes: RouteTable = {
  module: 'collection-template',
  description: 'Collection templates: the platform ones every organization gets and its own, versioned, switchable',
  routes: [
    route({
      method: 'get',
      path: '/v1/collection-templates',
      summary: 'Templates of the organization: platform and own, switched-off ones included, with metrics',
      gate,
      query: ListQuery,
      responses: { 200: TemplatePage },
      reads,
      async handle({ app, principal, query }) {
        const page = await listTemplates(app.db, principal.organizationId, query);
        const items = page.items.map(({ metrics, ...template }) => presentTemplate(template, metrics, app.config.PUBLIC_BASE_URL));
        return { total: page.total, skip: query.skip, take: query.take, items };
      },
    }),
    route({
      method: 'post',
      path: '/v1/collection-templates',
      summary: 'Create an own template (version 1)',
      description: 'The slug is unique in the organization and cannot be a platform template slug (409).',
      gate,
      body: CreateBody,
      responses: { 201: TemplateSchema },
      reads: completionReads,
      async handle({ app, principal, body }) {
        const { slug, ...content } = body;
        return { status: 201, body: await written(app, principal, slug, await createTemplate(app, principal, slug, contentOf(content))) };
      },
    }),
    route({
      method: 'get',
      path: '/v1/collection-templates/:slug',
      summary: 'A template at its latest version',
      gate,
      params: SlugParams,
      responses: { 200: TemplateSchema },
      reads,
      async handle({ app, principal, params }) {
        return present(app, principal.organizationId, await findTemplateBySlug(app.db, principal.organizationId, params.slug));
      },
    }),
    route({
      method: 'get',
      path: '/v1/collection-templates/:slug/versions/:version',
      summary: 'One version of a template (the one a collection names in templateVersion); of a platform template only the current',
      gate,
      params: VersionParams,
      responses: { 200: TemplateSchema },
      reads,
      async handle({ app, principal, params }) {
        return present(app, principal.organizationId, await findTemplateVersion(app.db, principal.organizationId, params.slug, params.version));
      },
    }),
    route({
      method: 'put',
      path: '/v1/collection-templates/:slug',
      summary: 'Edit an own template: a new version with the whole content',
      description: 'Unchanged content makes no version. Collections keep the version they were made from. Platform templates: 409.',
      gate,
      params: SlugParams,
      body: UpdateBody,
      responses: { 200: TemplateSchema },
      reads: completionReads,
      async handle({ app, principal, params, body }) {
        return written(app, principal, params.slug, await reviseTemplate(app, principal, params.slug, contentOf(body)));
      },
    }),
    route({
      method: 'patch',
      path: '/v1/collection-templates/:slug',
      summary: 'Switch a template on or off for the organization (every version)',
      description:
        'updated counts the versions switched (1 for a platform template, which changes for the caller organization only). ' +
        'Off: still listed, hidden from new choices, its slug still accepted by POST /v1/collections.',
      gate,
      params: SlugParams,
      body: SwitchBody,
      responses: { 200: SwitchReply },
      async handle({ app, principal, params, body }) {
        const switched = await switchTemplate(app, principal, params.slug, body.enabled);
        // As written(): a template switched off must close its public form before the reply says so.
        await app.readYourWrites([COLLECTION_TEMPLATE_PROJECTION], switched.position);
        return replyAfterWrite(app, principal, switched, ({ updated }) => ({ slug: params.slug, enabled: body.enabled, updated }));
      },
    }),
  ],
};
