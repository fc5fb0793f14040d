import type { Context } from 'koa';
import type { AppContext } from '../../application/context.ts';
import type { Principal } from '../../domain/identity/access.ts';
import type { Gate } from '../gates.ts';
import type { Html } from './html.ts';

/** The signed-in user on one console request; the principal is the one the API would see. */
export interface ConsoleView {
  app: AppContext;
  /** Koa's context: `params`, `query`, and for a POST the urlencoded form in `request.body`. */
  ctx: Context;
  principal: Principal;
  user: { id: string; name: string; email: string };
  /** Every form carries it back in the field `_csrf` (and htmx requests in the header `X-CSRF-Token`). */
  csrfToken: string;
}

/**
 * What a handler answers: a whole page (wrapped in the layout, with the navigation), a fragment
 * (htmx swaps: no layout), or a redirect (303 after a form post). A refusal is thrown: an
 * HttpError or DomainError becomes the console's error page with the same status and message.
 */
export type ConsoleReply = { title: string; body: Html } | { fragment: Html } | { redirect: string };

export interface PageOptions {
  /** The same gate the API route for this data uses: a page never shows what the API would refuse. */
  gate?: Gate;
}

/** Paths are relative to /console (`/reports/:id`). A POST's CSRF token is checked before its handler. */
export interface ConsoleRouter {
  get(path: string, options: PageOptions, handler: (view: ConsoleView) => Promise<ConsoleReply>): void;
  post(path: string, options: PageOptions, handler: (view: ConsoleView) => Promise<ConsoleReply>): void;
  /** A reply the handler writes itself (Server-Sent Events, a download), after sign-in and the gate. */
  stream(path: string, options: PageOptions, handler: (view: ConsoleView) => Promise<void>): void;
}

/** One entry of the console's navigation with the pages under it; listed in `sections.ts`. */
export interface ConsoleSection {
  key: string;
  /** Portuguese, as the navigation shows it. */
  label: string;
  href: string;
  /** The section is in the navigation only for users that pass it. */
  gate?: Gate;
  routes(router: ConsoleRouter): void;
}
