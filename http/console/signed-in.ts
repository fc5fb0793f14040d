import type { Context } from 'koa';
import Type, { type TSchema } from 'typebox';
import type { AppContext } from '../../application/context.ts';
import { readOwnWrites } from '../../application/read-your-writes.ts';
import type { Principal } from '../../domain/identity/access.ts';
import { Messages } from '../../domain/shared/messages.ts';
import { refusalOf } from '../errors.ts';
import { checkGate, type Gate } from '../gates.ts';
import { route, type Reply, type RouteSpec } from '../route.ts';
import { consolePage, errorBox, htmlReply, publicPage, seeOther } from './html.ts';
import { checkCsrf, consolePrincipal, sessionCsrf } from './session.ts';

export const CONSOLE_HTML = ['text/html'];
export const ConsoleForm = Type.Object({ csrf: Type.Optional(Type.String()) }, { additionalProperties: true, description: 'urlencoded form fields' });

export const wantsPage = (ctx: Context) => ctx.accepts('json', 'html') === 'html';

/** A form field as text: urlencoded bodies may repeat a name, and a missing one is empty. */
export function field(body: unknown, name: string): string {
  const value = body && typeof body === 'object' ? (body as Record<string, unknown>)[name] : undefined;
  return typeof value === 'string' ? value : '';
}

/** A refusal: a page for a browser, the API's error body for anything else. */
export function refusal(ctx: Context, status: number, message: string, page?: (message: string) => string): Reply {
  if (!wantsPage(ctx)) return { status, body: { code: status, message } };
  return htmlReply(status, page ? page(message) : publicPage('Não foi possível continuar', `${errorBox(message)}<p><a href="/console">Voltar ao console</a></p>`));
}

/** Where the sign-in returns to: a console page only (never another site, nor `//host`). */
export function returnPath(value: string): string {
  return /^\/console\/[A-Za-z0-9\-._~/?=&%]*$/.test(value) && !value.includes('//') ? value : '/console';
}

/** The sign-in page, asked to come back to the page requested (a GET: a form's POST cannot be replayed). */
function signInFor(ctx: Context): string {
  return ctx.method === 'GET' && returnPath(ctx.originalUrl) !== '/console' ? `/console/entrar?voltar=${encodeURIComponent(ctx.originalUrl)}` : '/console/entrar';
}

export interface SignedIn {
  app: AppContext;
  ctx: Context;
  principal: Principal;
  /** The session's form token, for the page's forms. */
  csrf: string;
  body: unknown;
  params: Record<string, string>;
}

/**
 * A page of a signed-in user: no session sends a browser to the sign-in (anything else gets 401);
 * a POST must carry the session's form token. A refusal from the domain is answered as a page
 * with its status; `form` re-renders the page the user was on, with the message.
 */
export function signedIn(handler: (input: SignedIn) => Promise<Reply>, form?: (input: SignedIn, message: string) => Promise<string>): RouteSpec['handle'] {
  return async ({ app, ctx, body, params }) => {
    const principal = await consolePrincipal(app, ctx);
    if (!principal) return wantsPage(ctx) ? seeOther(signInFor(ctx)) : refusal(ctx, 401, Messages.invalidToken);
    const input: SignedIn = { app, ctx, principal, csrf: sessionCsrf(app, principal.sessionId), body, params: params as Record<string, string> };
    try {
      if (ctx.method === 'POST') checkCsrf(app, ctx, field(body, 'csrf'), input.csrf);
      return await handler(input);
    } catch (error) {
      const refused = refusalOf(error);
      if (!refused) throw error;
      const page = form && refused.status !== 403 ? await form(input, refused.message) : undefined;
      return { ...refusal(ctx, refused.status, refused.message, page === undefined ? undefined : () => page), ...(refused.headers && { headers: { ...refused.headers } }) };
    }
  };
}

/**
 * A signed-in page's HTML (menu, title, content): what a form's refusal re-renders. `sandboxItem`:
 * what the page shows holds a sandbox result; the banner also shows on every page of a sandbox deployment.
 */
export const pageHtml = (title: string, input: SignedIn, content: string, scripts: readonly string[] = [], sandboxItem = false) =>
  consolePage(title, input.principal, input.csrf, content, scripts, sandboxItem ? 'item' : input.app.config.DEPLOYMENT === 'sandbox' ? 'deployment' : null);

export const page = (status: number, title: string, input: SignedIn, content: string, scripts: readonly string[] = []) => htmlReply(status, pageHtml(title, input, content, scripts));

export interface ConsoleRouteSpec {
  method: 'get' | 'post';
  path: string;
  summary: string;
  description?: string;
  /** Checked first, as the API's route for the same thing checks it. */
  gate?: Gate;
  params?: TSchema;
  /** Statuses beyond 401, and 403 (a gate, or a POST's form token). */
  errors?: readonly number[];
  /** Where a successful POST redirects (303), for the OpenAPI document. */
  redirects?: string;
  /** Media types of the reply; default HTML. */
  files?: readonly string[];
  /** The projections the page reads, as RouteSpec's `reads`: a form's redirect lands on a page that shows the write. */
  reads?: readonly string[];
  handle(input: SignedIn): Promise<Reply>;
  /** Re-renders the page the user was on with a refusal's message (signedIn). */
  form?: (input: SignedIn, message: string) => Promise<string>;
}

/**
 * A signed-in console page or form, declared once: the session, the gate, the form token and the
 * refusals are the same for all of them, and every one is in the OpenAPI document as HTML.
 */
export function consoleRoute(spec: ConsoleRouteSpec): RouteSpec {
  const post = spec.method === 'post';
  const redirect = spec.redirects ? `${spec.redirects}; to the sign-in page for a browser without a session` : 'to the sign-in page, for a browser without a session';
  return route({
    method: spec.method,
    path: spec.path,
    summary: spec.summary,
    description: spec.description,
    auth: false,
    files: spec.files ?? CONSOLE_HTML,
    params: spec.params,
    ...(post && { rawBody: true, pageForm: true, body: ConsoleForm }),
    responses: { 303: Type.Null({ description: redirect }) },
    errors: [...new Set([401, ...(spec.gate || post ? [403] : []), ...(spec.errors ?? [])])],
    handle: signedIn(async (input) => {
      if (spec.gate) checkGate(spec.gate, input.principal);
      await readOwnWrites(input.app, input.principal, spec.reads);
      return spec.handle(input);
    }, spec.form),
  });
}
