import { providers, sandboxParts } from '../config/deployment.ts';
import Router from '@koa/router';
import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import Koa, { type Context, type Middleware, type Next } from 'koa';
import { koaBody, type KoaBodyMiddlewareOptions } from 'koa-body';
import type { AppContext } from '../application/context.ts';
import { Messages } from '../domain/shared/messages.ts';
import { bodyParseError, errorMiddleware, HttpError } from './errors.ts';
import { clientAddress, parseTrustProxy } from './client-address.ts';
import { buildOpenApi } from './openapi.ts';
import { publicRouteGuard } from './public-routes.ts';
import { mountRoutes, PROVIDER_CALLBACKS, type RouteSpec, type RouteTable } from './route.ts';
import { isOperator, readiness } from './readiness.ts';

const REQUEST_ID = /^[A-Za-z0-9._-]{1,100}$/;

// Every body this service reads is JSON, in UTF-8 as RFC 8259 asks. koa-body leaves any other
// body unread, and a route would then list every field as missing: answer 415 instead.
const JSON_TYPES = ['application/json', '+json'];
// The methods koa-body reads a body on (its parsedMethods default).
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);

function carriesBody(ctx: Context): boolean {
  return ctx.get('transfer-encoding') !== '' || Number(ctx.get('content-length')) > 0;
}

// The public offer page, the public form and the recipient page's item forms (a FORM's answers, a
// CONSENT's acceptance, a SIGNATURE's steps) are plain HTML forms that work without script: routes
// that declare `pageForm` take their urlencoded POSTs; every other route reads JSON only.
function pageFormMatcher(tables: readonly RouteTable[]): (ctx: Context) => boolean {
  const pattern = pathsOf(tables, (spec) => spec.pageForm === true);
  return (ctx) => pattern.test(ctx.path) && ctx.is('application/x-www-form-urlencoded') !== false;
}

/** One pattern matching the paths of the routes `which` picks. */
function pathsOf(tables: readonly RouteTable[], which: (spec: RouteSpec) => boolean): RegExp {
  const paths = tables
    .flatMap((table) => table.routes)
    .filter(which)
    .map((spec) => `^${spec.path.replace(/:[A-Za-z]+/g, '[^/]+')}$`);
  return new RegExp(paths.join('|') || '(?!)');
}

/** Routes `which` picks, by method and path. */
function routesMatcher(tables: readonly RouteTable[], which: (spec: RouteSpec) => boolean): (ctx: Context) => boolean {
  const byMethod = new Map([...BODY_METHODS].map((method) => [method, pathsOf(tables, (spec) => which(spec) && spec.method === method.toLowerCase())]));
  return (ctx) => byMethod.get(ctx.method)?.test(ctx.path) ?? false;
}

/**
 * The body parser of a request, by its route: JSON (and a page's urlencoded form), under the
 * route's own `bodyLimit` when it declares one, which raw-body checks against Content-Length
 * before reading a byte (and counts while reading a chunked body), so an anonymous 1 MB form never
 * reaches the route's checks; keeping the exact text for callbacks signed over their bytes.
 */
function bodyParsers(options: Partial<KoaBodyMiddlewareOptions>): (path: string, spec?: RouteSpec) => Middleware {
  const parseBody = koaBody(options);
  const parseBodyKeepingText = koaBody({ ...options, includeUnparsed: true });
  const bounded = new Map<RouteSpec, Middleware>();
  return (path, spec) => {
    const keepsText = spec?.keepUnparsedBody === true || path.startsWith(PROVIDER_CALLBACKS);
    if (spec?.bodyLimit === undefined) return keepsText ? parseBodyKeepingText : parseBody;
    let parser = bounded.get(spec);
    if (!parser) bounded.set(spec, (parser = koaBody({ ...options, includeUnparsed: keepsText, jsonLimit: spec.bodyLimit, formLimit: spec.bodyLimit, textLimit: spec.bodyLimit })));
    return parser;
  };
}

/** The route a request is for, by method and path, for the middleware that runs before the router. */
function routeFinder(tables: readonly RouteTable[]): (ctx: Context) => RouteSpec | undefined {
  const specs = tables.flatMap((table) => table.routes).map((spec) => ({ spec, method: spec.method.toUpperCase(), path: pathsOf(tables, (other) => other === spec) }));
  return (ctx) => specs.find((s) => s.method === ctx.method && s.path.test(ctx.path))?.spec;
}

const jsonBodiesOnly =
  (isPageForm: (ctx: Context) => boolean, isStreamed: (ctx: Context) => boolean) =>
  async (ctx: Context, next: Next): Promise<void> => {
    if (BODY_METHODS.has(ctx.method) && carriesBody(ctx) && !isStreamed(ctx)) {
      // Multipart bodies are read by their upload routes (http/upload.ts); any other route refuses them.
      if (!ctx.is(JSON_TYPES) && !isPageForm(ctx) && !ctx.is('multipart/form-data')) throw new HttpError(415, Messages.unsupportedMediaType);
      if (ctx.request.charset && !/^utf-?8$/i.test(ctx.request.charset)) throw new HttpError(415, Messages.unsupportedCharset);
    }
    await next();
  };

const OBJECT_ID = /^[0-9a-f]{24}$/;
// A path segment kept as it is when no route matched: a word of a path (`v2`, `report`,
// `.well-known`), never a token, a signature or a document.
const PATH_WORD = /^(?:v\d+|[a-z._-]{1,40})$/;

/**
 * What the request log names: the route's template (`/c/:token/items/:itemId`), never the path
 * as sent, nor its query. Recipient and offer tokens, signed upload and download links and CPFs
 * in search parameters are credentials or personal data, and logs are kept, copied and read by
 * more people than the database. Without a matched route (a 404, the MCP connector), the path's
 * words stay and every other segment reads `:value`.
 */
function routeOf(ctx: Context): string {
  const matched = (ctx as Context & { _matchedRoute?: string | RegExp })._matchedRoute;
  if (typeof matched === 'string') return matched;
  return ctx.path
    .split('/')
    .map((segment) => (segment === '' || PATH_WORD.test(segment) ? segment : ':value'))
    .join('/');
}

/** The record ids of the matched route (ObjectIds: no secret, and what an operator looks for). */
function idsOf(ctx: Context): Record<string, string> | undefined {
  const params = (ctx as Context & { params?: Record<string, string> }).params ?? {};
  const ids = Object.entries(params).filter(([, value]) => OBJECT_ID.test(value));
  return ids.length ? Object.fromEntries(ids) : undefined;
}

const CLIENT_ERROR_LINGER_MS = 5_000;

// What Node's HTTP parser refuses before koa sees a request; any other parse error is a 400.
const PARSER_ERRORS: Record<string, [number, string]> = {
  HPE_HEADER_OVERFLOW: [431, Messages.headersTooLarge],
  HPE_CHUNK_EXTENSIONS_OVERFLOW: [413, Messages.bodyTooLarge],
  ERR_HTTP_REQUEST_TIMEOUT: [408, Messages.requestTimeout],
};

/**
 * The server's `clientError` listener. Node's own answers (a 431 for a 20 KB query string, a 400
 * for a broken request line) have an empty body; integrators get the error shape here too.
 */
export function answerClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
  // Answered already: every later chunk of the same request fails to parse again. Destroying
  // now would reset the connection before the client, still sending, reads the answer.
  if (socket.writableEnded) return;
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  // A request on this connection is still being answered (keep-alive): its command may already
  // have succeeded, so its own reply must go out, not a 400 in its place. The connection closes
  // after that reply; the bytes that broke the parser get no answer of their own.
  const pending = (socket as { _httpMessage?: { writableEnded: boolean; shouldKeepAlive: boolean } })._httpMessage;
  if (pending && !pending.writableEnded) {
    pending.shouldKeepAlive = false;
    return;
  }
  const [status, message] = PARSER_ERRORS[error.code ?? ''] ?? [400, Messages.malformedRequest];
  const body = JSON.stringify({ code: status, message });
  socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` + `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
  // The client closes once it has the answer; one that never does is let go.
  setTimeout(() => socket.destroy(), CLIENT_ERROR_LINGER_MS).unref();
}

/**
 * The service's HTTP app. `mounted`: handlers that own their paths whole (the MCP connector and
 * its authorization server), placed before the API's body parsing because they read their own.
 */
export function createHttpApp(app: AppContext, tables: readonly RouteTable[], projectionNames: readonly string[], mounted: readonly Middleware[] = []): Koa {
  const trust = parseTrustProxy(app.config.TRUST_PROXY);
  // X-Forwarded-Proto and -Host count only from a trusted proxy too; the client address is ours (below).
  const koa = new Koa({ proxy: trust.kind !== 'none' });
  // Koa's own report of what happened after a reply began (it would print to stderr): a client
  // that went away mid-stream (a live page closed) is routine; anything else is logged as an error.
  koa.on('error', (error: NodeJS.ErrnoException, ctx?: Context) => {
    const log = (ctx?.state.log as AppContext['log'] | undefined) ?? app.log;
    if (error.code === 'ERR_STREAM_PREMATURE_CLOSE' || error.code === 'ECONNRESET') log.debug({ err: error }, 'client left before the reply ended');
    else log.error({ err: error }, 'reply failed after it began');
  });
  const router = new Router();
  const openapi = buildOpenApi(tables, { serverUrl: app.config.PUBLIC_BASE_URL });

  koa.use(async (ctx, next) => {
    // Koa would take X-Forwarded-For's leftmost entry, which any client writes: TRUST_PROXY decides.
    ctx.request.ip = clientAddress(ctx.req.socket.remoteAddress ?? '', ctx.get('x-forwarded-for'), trust);
    const incoming = ctx.get('x-request-id');
    const requestId = REQUEST_ID.test(incoming) ? incoming : randomUUID();
    ctx.set('X-Request-Id', requestId);
    ctx.state.log = app.log.child({ requestId }, true);
    const started = process.hrtime.bigint();
    try {
      await next();
    } finally {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      ctx.state.log.info({ method: ctx.method, route: routeOf(ctx), ids: idsOf(ctx), status: ctx.status, ms: Math.round(ms * 10) / 10 }, 'request');
    }
  });
  koa.use(errorMiddleware);
  koa.use(publicRouteGuard(app));
  for (const handler of mounted) koa.use(handler);
  const isStreamed = routesMatcher(tables, (spec) => spec.streamedBody === true);
  koa.use(jsonBodiesOnly(pageFormMatcher(tables), isStreamed));
  const bodyOptions: Partial<KoaBodyMiddlewareOptions> = {
    jsonLimit: app.config.BODY_LIMIT,
    formLimit: app.config.BODY_LIMIT,
    textLimit: app.config.BODY_LIMIT,
    jsonStrict: true,
    jsonTypes: JSON_TYPES,
    // Upload routes stream their own multipart body to a bounded temporary file (http/upload.ts).
    multipart: false,
    text: false,
    // Only the page forms get here urlencoded (jsonBodiesOnly refuses it elsewhere).
    urlencoded: true,
    onError(error, ctx) {
      const refusal = bodyParseError(error);
      // The parser stopped mid-body: read off the rest, or the connection's next request is read
      // from inside this one's body and reset. A 413's rest is read off, bounded, before its
      // answer (errorMiddleware, dropUnreadBody), and that connection closes.
      if (refusal.status !== 413) {
        ctx.req.unpipe();
        ctx.req.resume();
      }
      throw refusal;
    },
  };
  const parserOf = bodyParsers(bodyOptions);
  const specOf = routeFinder(tables);
  koa.use((ctx, next) => {
    if (isStreamed(ctx)) return next();
    const spec = specOf(ctx);
    // A route that checks who asks first (`before`) reads its body only once let through (mountRoutes).
    if (spec?.before) return next();
    return parserOf(ctx.path, spec)(ctx, next);
  });

  router.get('/health', (ctx) => {
    ctx.body = { status: 'ok' };
  });
  router.get('/ready', async (ctx) => {
    const report = await readiness(app, projectionNames);
    ctx.status = report.ready ? 200 : 503;
    const status = report.ready ? 'ready' : 'not ready';
    // The mode is public: a sandbox deployment must never pass for a real one. Providers,
    // checkpoints, lags and timeouts describe the setup, every tenant's traffic and the database: operators only.
    const deployment = app.config.DEPLOYMENT;
    ctx.body = isOperator(app, ctx) ? { status, deployment, providers: providers(app.config), sandboxParts: sandboxParts(app.config), ...report } : { status, deployment };
  });
  router.get('/openapi.json', (ctx) => {
    ctx.body = openapi;
  });
  mountRoutes(router, app, tables, (ctx, spec) => parserOf(ctx.path, spec)(ctx, async () => {}));
  koa.use(router.routes());
  koa.use(router.allowedMethods());
  return koa;
}
