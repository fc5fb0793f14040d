import { createHash } from 'node:crypto';
import Router from '@koa/router';
import type { Context } from 'koa';
import Type, { type Static, type TSchema } from 'typebox';
import type { AppContext } from '../application/context.ts';
import { limitHeaders } from '../application/identity/limits.ts';
import { readOwnWrites } from '../application/read-your-writes.ts';
import type { Principal } from '../domain/identity/access.ts';
import { Messages } from '../domain/shared/messages.ts';
import { HttpError } from './errors.ts';
import { runIdempotently } from './idempotency.ts';
import { checkGate, type Gate } from './gates.ts';
import { readUpload, type UploadedFile, type UploadLimits } from './upload.ts';
import { validateBody, validateText } from './validation.ts';

export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** A reply other than a plain 200 JSON body. */
export interface Reply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** Raw bytes (exports, files); sent instead of JSON. */
  raw?: Buffer;
  /** A body written as it goes (Server-Sent Events); ends when the stream ends. */
  stream?: NodeJS.ReadableStream;
}

export interface RouteInput<P, Q, B> {
  params: P;
  query: Q;
  body: B;
  principal: Principal;
  app: AppContext;
  ctx: Context;
  /** The file of an upload route (`upload` in its spec); undefined elsewhere. */
  file?: UploadedFile;
  /** Every file of an upload route by its field (`upload.field` and `upload.alsoFields`). */
  files?: Readonly<Record<string, UploadedFile>>;
  /** The body's exact text, for routes under PROVIDER_CALLBACKS or declaring `keepUnparsedBody` (signatures are computed over it); undefined elsewhere. */
  unparsedBody?: string;
}

/** Paths of providers' callbacks (status webhooks): the body parser keeps their raw text. */
export const PROVIDER_CALLBACKS = '/callbacks/';

/**
 * One route, declared once: path, gate, schemas and handler. The same declaration mounts the
 * route, enforces its gate and produces its OpenAPI entry, so they cannot drift apart.
 */
export interface RouteSpec<P extends TSchema = TSchema, Q extends TSchema = TSchema, B extends TSchema = TSchema> {
  method: Method;
  /** koa-router syntax: `/v2/report/:id`. */
  path: string;
  summary: string;
  description?: string;
  /**
   * Everything needs a bearer token but: 'client-credentials' (authentication itself, with the
   * service-client-id/secret headers) and false (public, e.g. signed downloads).
   */
  auth?: false | 'client-credentials';
  gate?: Gate;
  params?: P;
  query?: Q;
  body?: B;
  /** Status -> schema of the reply body, for the OpenAPI document and the contract test. */
  responses?: Record<number, TSchema>;
  /**
   * Error statuses this route answers beyond those every route of its kind can (validation,
   * authentication, gate, body parsing, idempotency: see http/openapi.ts errorStatusesOf).
   */
  errors?: readonly number[];
  /** Media types of a raw (file) reply: the 200 is documented as bytes of these types. */
  files?: readonly string[];
  /** Stable id for generated clients; derived from module, method and path when absent. */
  operationId?: string;
  /** Raw request body handling (a page's form): skip JSON body validation. */
  rawBody?: boolean;
  /** A plain HTML form posts here: the route also takes an urlencoded body (any other route answers 415). */
  pageForm?: boolean;
  /**
   * A bound on the body below BODY_LIMIT (koa-body's syntax: '64kb'), for a route anyone may
   * post to that needs little: a larger body is refused with 413 before it is read or parsed.
   */
  bodyLimit?: string;
  /** A callback signed over its exact bytes outside PROVIDER_CALLBACKS (an older path): the parser keeps the text too (`unparsedBody`). */
  keepUnparsedBody?: boolean;
  /**
   * A multipart/form-data upload: one file under `upload.field` (and one under each `upload.alsoFields`); the other parts are text fields
   * validated by `body` like a JSON body (their values arrive as strings).
   */
  upload?: UploadLimits;
  /**
   * The handler reads the request body itself from `ctx.req` (a file streamed to storage, a
   * multipart of several files): nothing parses it first, any content type gets through, and
   * `upload` then only documents the form.
   */
  streamedBody?: boolean;
  /**
   * Runs after authentication, gate and params, before the body is read or validated: a lookup
   * the contract answers first (the report of a financial upload: 404 before any 400). A reply it
   * returns is the answer (a public upload or page form refused by its link or item): the body is
   * never read, not even parsed up to `bodyLimit`, and the connection closes after it.
   */
  /**
   * The projections the handler reads (their names): before it runs, the caller's request waits
   * (bounded) until they have passed the caller's last write, so a write is seen by the read that
   * follows it (application/read-your-writes.ts). Every route reading a read model declares it.
   */
  reads?: readonly string[];
  before?(input: { params: Static<P>; principal: Principal; app: AppContext; ctx: Context }): Promise<void | Reply>;
  handle(input: RouteInput<Static<P>, Static<Q>, Static<B>>): Promise<unknown>;
}

/**
 * The `bodyLimit` of a page's small form anyone holding a link may post (a consent's box, an
 * offer's choice, a signature step, the public form's four fields): a few hundred bytes.
 */
export const PAGE_FORM_BODY_LIMIT = '16kb';

export interface RouteTable {
  /** The module name shared by http/, application/, domain/, projections/. */
  module: string;
  /** What the module is for: its tag's description in the OpenAPI document. */
  description?: string;
  routes: RouteSpec[];
}

export function route<P extends TSchema = TSchema, Q extends TSchema = TSchema, B extends TSchema = TSchema>(spec: RouteSpec<P, Q, B>): RouteSpec {
  return spec as unknown as RouteSpec;
}

/** An ObjectId in a path or body: 400 before any lookup when malformed. */
export const ObjectIdSchema = (message: string = Messages.invalidId) => Type.String({ pattern: '^[0-9a-fA-F]{24}$', errorMessage: message });

export const ErrorBody = Type.Object(
  { code: Type.Integer({ description: 'the HTTP status' }), message: Type.String({ description: 'in Portuguese; contract texts are constants' }) },
  {
    additionalProperties: true,
    description: 'Every error. Some carry extra fields for resuming (operationResultId, reportId, proposalRunId).',
    examples: [{ code: 401, message: 'Token de acesso inválido.' }],
  },
);

// The scheme name is case-insensitive (RFC 9110 11.1); the token must look like a compact JWS.
const BEARER = /^Bearer\s+([\w-]+\.[\w-]+\.[\w-]*)$/i;

/** Organization and user come from the token only (Authentication 4): a body cannot name them. */
export function withoutCallerFields(body: unknown): unknown {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return body;
  const { organizationId: _organization, userId: _user, ...rest } = body as Record<string, unknown>;
  return rest;
}

async function principalOf(ctx: Context, app: AppContext): Promise<Principal> {
  const match = BEARER.exec(ctx.get('authorization') ?? '');
  if (!match) throw new HttpError(401, Messages.invalidToken);
  return app.authenticator.verify(match[1]!);
}

export const needsBearer = (spec: Pick<RouteSpec, 'auth'>) => spec.auth === undefined;

/** Authenticated POSTs take an Idempotency-Key (http/idempotency.ts). */
export const takesIdempotencyKey = (spec: Pick<RouteSpec, 'method' | 'auth'>) => spec.method === 'post' && needsBearer(spec);

function isReply(value: unknown): value is Reply {
  return typeof value === 'object' && value !== null && 'status' in value && typeof (value as Reply).status === 'number' && ('body' in value || 'raw' in value || 'stream' in value);
}

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
/** An upload's bytes for the idempotency fingerprint: the file as always, the further files by field when there are any. */
function fileDigests(file: UploadedFile, files: Record<string, UploadedFile>) {
  const others = Object.entries(files).filter(([, f]) => f !== file);
  return { fileSha256: sha256(file.bytes), ...(others.length && { otherFilesSha256: Object.fromEntries(others.map(([name, f]) => [name, sha256(f.bytes)])) }) };
}

export const asReply = (result: unknown): Reply => (isReply(result) ? result : { status: 200, body: result ?? null });

function send(ctx: Context, reply: Reply): void {
  for (const [name, value] of Object.entries(reply.headers ?? {})) ctx.set(name, value);
  ctx.status = reply.status;
  ctx.body = reply.stream ?? reply.raw ?? reply.body ?? null;
}

/** Parses a request's JSON or urlencoded body as its route declares (http/app.ts); the result is ctx.request.body. */
export type BodyReader = (ctx: Context, spec: RouteSpec) => Promise<void>;

export function mountRoutes(router: Router, app: AppContext, tables: readonly RouteTable[], readBody: BodyReader): void {
  for (const table of tables) {
    for (const spec of table.routes) {
      router[spec.method](spec.path, async (ctx) => {
        // Every reply of the API is one caller's data (tokens, reports, download bytes): no
        // shared or browser cache may keep it. Errors included, since they can name records.
        ctx.set('Cache-Control', 'no-store');
        // Authentication and gates come before validation so that an outsider learns nothing
        // about a route's shape; ids are checked before any lookup.
        const principal = needsBearer(spec) ? await principalOf(ctx, app) : (undefined as unknown as Principal);
        let context = app;
        if (needsBearer(spec)) {
          ctx.state.principal = principal;
          // From here every line of the request, the handler's included, says who asked.
          ctx.state.log = ctx.state.log.child({ organizationId: principal.organizationId, credentialId: principal.credentialId, userId: principal.userId }, true);
          context = { ...app, log: ctx.state.log };
          // Set before the handler runs, so that error replies carry them too.
          ctx.set(limitHeaders(await app.limiter.consume(principal)));
          checkGate(spec.gate, principal);
          await readOwnWrites(app, principal, spec.reads);
        }
        const params = spec.params ? validateText(spec.params, { ...ctx.params }) : ctx.params;
        const query = spec.query ? validateText(spec.query, { ...ctx.query }) : ctx.query;
        const early = spec.before && (await spec.before({ params, principal, app: context, ctx }));
        if (early) {
          // The body stays unread: closing keeps its bytes from being taken for the next request.
          ctx.set('Connection', 'close');
          return send(ctx, early);
        }
        // Left unread until `before` let the request through (http/app.ts).
        if (spec.before && !spec.streamedBody) await readBody(ctx, spec);
        if (!spec.upload && !spec.streamedBody && ctx.is('multipart/form-data')) throw new HttpError(415, Messages.unsupportedMediaType);
        const upload = spec.upload && !spec.streamedBody ? await readUpload(ctx, spec.upload) : undefined;
        const received = spec.rawBody ? ctx.request.body : withoutCallerFields(upload ? upload.fields : ctx.request.body);
        const body = spec.body && !spec.rawBody ? validateBody(spec.body, received) : received;
        const file = upload?.file;
        const unparsedBody = (ctx.request as { rawBody?: string }).rawBody;
        const execute = async () => asReply(await spec.handle({ params, query, body, principal, app: context, ctx, file, files: upload?.files, unparsedBody }));
        // A repeated upload is the same request only with the same bytes, not merely the same fields.
        const fingerprint = upload ? { fields: received, ...fileDigests(upload.file, upload.files) } : received;
        send(ctx, takesIdempotencyKey(spec) ? await runIdempotently(ctx, app, principal, fingerprint, execute) : await execute());
      });
    }
  }
}
