import type { Context } from 'koa';
import type { AppContext } from '../application/context.ts';

/**
 * Whether a request's Origin header (when a browser sent one) is this service: the configured
 * address or the one the request came to (koa's ctx.origin echoes the header, so it is rebuilt).
 * A page on another site, or a rebound DNS name, is not.
 */
export function fromOurOrigin(app: Pick<AppContext, 'config'>, ctx: Context): boolean {
  const origin = ctx.get('origin');
  return !origin || origin === new URL(app.config.PUBLIC_BASE_URL).origin || origin === `${ctx.protocol}://${ctx.host}`;
}
