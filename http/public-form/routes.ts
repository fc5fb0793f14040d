import type { Context } from 'koa';
import Type from 'typebox';
import { countersOf, openPublicCollection, publicTemplate } from '../../application/public-form/open.ts';
import { formValues, parsePublicForm, secondsToNextBrasiliaDay } from '../../domain/public-form/form.ts';
import { PublicFormMessages as M } from '../../domain/public-form/messages.ts';
import { COLLECTION_PROJECTION } from '../../projections/collection/projection.ts';
import { DomainError } from '../../domain/shared/errors.ts';
import type { AppContext } from '../../application/context.ts';
import { STATUS_OF, html, refusalFor, type Refuse } from '../collection/recipient-link.ts';
import { ObjectIdSchema, PAGE_FORM_BODY_LIMIT, route, type Reply, type RouteTable } from '../route.ts';
import { publicFormPage } from './page.ts';

const Params = Type.Object({ templateId: ObjectIdSchema() });

/** The template while its link may be used, or the refusal: 404 when off or absent, 503 for the rest of a day at the ceiling. */
async function openForm(app: AppContext, templateId: string, refuse: Refuse) {
  const template = await publicTemplate(app, templateId);
  if (!template) return refuse(404, M.unavailableTitle, M.notFound);
  const now = app.clock.now();
  if (await countersOf(app).switchedOffToday(template.organizationId, now)) return ceilingReached(refuse, now);
  return template;
}

function ceilingReached(refuse: Refuse, now: Date): Reply {
  const reply = refuse(503, M.unavailableTitle, M.ceilingReached);
  return { ...reply, headers: { ...reply.headers, 'retry-after': String(secondsToNextBrasiliaDay(now)) } };
}

const isPage = (value: Awaited<ReturnType<typeof openForm>>): value is Reply => 'status' in value;

async function submit(app: AppContext, ctx: Context, templateId: string, body: unknown): Promise<Reply> {
  const refuse = refusalFor(ctx);
  const template = await openForm(app, templateId, refuse);
  if (isPage(template)) return template;
  const values = formValues(body);
  const parsed = parsePublicForm(values);
  if ('errors' in parsed) return refuse(400, M.unavailableTitle, Object.values(parsed.errors).join(', '), publicFormPage(template, values, parsed.errors));
  try {
    const outcome = await openPublicCollection(app, template, parsed.request, ctx.ip);
    if (!outcome.opened && outcome.reason === 'CEILING') return ceilingReached(refuse, app.clock.now());
    if (!outcome.opened) return { ...refuse(429, M.unavailableTitle, M.tooManyFromAddress), headers: { 'retry-after': '3600' } };
    // The recipient page finds its link in the read model: it must have the new collection before the redirect is followed.
    await app.readYourWrites([COLLECTION_PROJECTION], outcome.position);
    return { status: 303, raw: Buffer.alloc(0), headers: { location: `/c/${encodeURIComponent(outcome.link.token)}` } };
  } catch (error) {
    // A refusal of the collection (a CPF given for a company-only template's registry, a phone the channel refuses) is the person's to fix.
    if (!(error instanceof DomainError) || !STATUS_OF[error.kind]) throw error;
    return refuse(STATUS_OF[error.kind]!, M.unavailableTitle, error.message, publicFormPage(template, values, {}, error.message));
  }
}

/**
 * The public form (docs/public-form.md): a template with `publicForm` on lets anyone open a
 * collection for themselves at `/formulario/{templateId}`. No token: the link is public.
 */
export const publicFormRoutes: RouteTable = {
  module: 'public-form',
  description: 'Public forms: a page where anyone opens a collection of a template for themselves',
  routes: [
    route({
      method: 'get',
      path: '/formulario/:templateId',
      summary: "A template's public form (HTML): name, CPF or CNPJ, e-mail and phone",
      description:
        '404 when the template does not exist, has the public form off or is switched off; 503 (with Retry-After) for the rest of the Brasília day once the organization reached its daily ceiling of collections opened by public forms.',
      auth: false,
      files: ['text/html'],
      params: Params,
      errors: [404, 503],
      async handle({ app, ctx, params }) {
        const template = await openForm(app, params.templateId, refusalFor(ctx));
        return isPage(template) ? template : html(200, publicFormPage(template));
      },
    }),
    route({
      method: 'post',
      path: '/formulario/:templateId',
      summary: "The public form's submission (urlencoded): opens a collection for the person and redirects to their recipient page",
      description:
        'Fields `nome`, `documento` (CPF or CNPJ), `email`, `telefone` (optional). The collection is created by SYSTEM from the template, with the person as subject and only recipient, and sent; 303 to `/c/{token}`. 400: the page again with the errors; 429: too many submissions from this client address in the hour; 503: the daily ceiling.',
      auth: false,
      rawBody: true,
      pageForm: true,
      // Four short fields: a few hundred bytes. Anyone may post here, so nothing larger is read.
      bodyLimit: PAGE_FORM_BODY_LIMIT,
      files: ['text/html'],
      params: Params,
      responses: { 303: Type.Null({ description: "to the new recipient's page (Location)" }) },
      errors: [404, 409, 429, 503],
      // A template that takes no submission is refused before a byte of the body is read.
      async before({ app, ctx, params }) {
        const template = await openForm(app, params.templateId, refusalFor(ctx));
        return isPage(template) ? template : undefined;
      },
      async handle({ app, ctx, params, body }) {
        return submit(app, ctx, params.templateId, body);
      },
    }),
  ],
};
