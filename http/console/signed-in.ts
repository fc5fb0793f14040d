import type { Context } from 'koa';
import Type from 'typebox';
import type { AppContext } from '../../application/context.ts';
import type { Principal } from '../../domain/identity/access.ts';
import { DomainError } from '../../domain/shared/errors.ts';
import { Messages } from '../../domain/shared/messages.ts';
import { HttpError, STATUS_OF_KIND } from '../errors.ts';
import type { Reply, RouteSpec } from '../route.ts';
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
    if (!principal) return wantsPage(ctx) ? seeOther('/console/entrar') : refusal(ctx, 401, Messages.invalidToken);
    const input: SignedIn = { app, ctx, principal, csrf: sessionCsrf(app, principal.sessionId), body, params: params as Record<string, string> };
    try {
      if (ctx.method === 'POST') checkCsrf(app, ctx, field(body, 'csrf'), input.csrf);
      return await handler(input);
    } catch (error) {
      if (!(error instanceof DomainError) && !(error instanceof HttpError)) throw error;
      const status = error instanceof HttpError ? error.status : STATUS_OF_KIND[error.kind];
      const page = form && status !== 403 ? await form(input, error.message) : undefined;
      return { ...refusal(ctx, status, error.message, page === undefined ? undefined : () => page), ...(error.headers && { headers: { ...error.headers } }) };
    }
  };
}

export const page = (status: number, title: string, input: SignedIn, content: string, scripts: readonly string[] = []) =>
  htmlReply(status, consolePage(title, input.principal, input.csrf, content, scripts));

