import type { Context, Next } from 'koa';
import type { AppContext } from '../application/context.ts';
import { countPublicRequest } from '../application/identity/address-limits.ts';
import { withRecipientSandboxBanner } from './collection/recipient-html.ts';

/**
 * Routes anyone may call without a credential, where only the client address bounds a caller:
 * a recipient's link, an offer, a public form, the console's sign-in and OAuth client registration.
 */
const PUBLIC_PATHS = /^\/(c|oferta|formulario)\/|^\/console\/entrar$|^\/oauth\/reg$/;
/** The pages a recipient or an anonymous visitor reads: a sandbox deployment says so on each. */
const RECIPIENT_PATHS = /^\/(c|oferta|formulario)\//;

/**
 * Their pages carry a token in the URL and ask a person to act: no script but the service's own
 * files, never framed (clickjacking a consent or a signature), never sniffed into another type, and
 * no Referer that would hand the token to whatever a link leads to. Inline style stays allowed:
 * the pages are one self-contained file each and a style cannot run code.
 */
const PAGE_HEADERS = {
  'content-security-policy': "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'x-frame-options': 'DENY',
};
const EVERY_REPLY = { 'x-content-type-options': 'nosniff', 'referrer-policy': 'no-referrer' };

export const isPublicPath = (path: string) => PUBLIC_PATHS.test(path);

/**
 * Before anything else of a public route (its body is not read yet): one request counted against
 * the client address, 429 with Retry-After past the limit. Its replies get the headers above; a
 * route that sets its own (the console's sign-in page) keeps them.
 */
export const publicRouteGuard =
  (app: AppContext) =>
  async (ctx: Context, next: Next): Promise<void> => {
    if (!isPublicPath(ctx.path)) return next();
    ctx.set(EVERY_REPLY);
    // The body is not read when refused here: the connection closes rather than carry it as a request.
    await countPublicRequest(app, ctx.ip).catch((refusal: unknown) => {
      ctx.set('Connection', 'close');
      throw refusal;
    });
    await next();
    if (!ctx.response.is('html')) return;
    for (const [name, value] of Object.entries(PAGE_HEADERS)) if (!ctx.response.get(name)) ctx.set(name, value);
    // Every page, refusals and messages included, whichever route wrote it: none passes for a real request.
    if (app.config.DEPLOYMENT === 'sandbox' && RECIPIENT_PATHS.test(ctx.path) && (typeof ctx.body === 'string' || Buffer.isBuffer(ctx.body))) {
      ctx.body = withRecipientSandboxBanner(ctx.body.toString());
    }
  };
