import type { IncomingMessage } from 'node:http';
import type { Context, Next } from 'koa';
import { DomainError, type DomainErrorKind } from '../domain/shared/errors.ts';
import { Messages } from '../domain/shared/messages.ts';

/** An error that already knows its HTTP answer. Body: `{code, message, ...extra}`. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly extra?: Record<string, unknown>,
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

export const STATUS_OF_KIND: Record<DomainErrorKind, number> = {
  invalid: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  unprocessable: 422,
  too_many: 429,
  upstream: 502,
  partial: 503,
};

/** An expected refusal (HttpError or DomainError) with its status; undefined for anything else, which is a fault. */
export function refusalOf(error: unknown): { status: number; message: string; extra?: Record<string, unknown>; headers?: Record<string, string> } | undefined {
  if (error instanceof HttpError) return error;
  if (error instanceof DomainError) return { status: STATUS_OF_KIND[error.kind], message: error.message, extra: error.extra, headers: error.headers };
  return undefined;
}

function answer(ctx: Context, status: number, message: string, extra?: Record<string, unknown>): void {
  ctx.status = status;
  ctx.body = { code: status, message, ...extra };
}

// Statuses the router sets without a body: no route, a method the route lacks, a method no route knows.
const BODILESS: Record<number, string> = {
  404: Messages.routeNotFound,
  405: Messages.methodNotAllowed,
  501: Messages.methodNotImplemented,
};

/**
 * Every failure leaves as `{code, message}` with `code` equal to the status. Errors we did not
 * expect are logged with their stack and answered with the contract's generic 500 text only.
 */
export async function errorMiddleware(ctx: Context, next: Next): Promise<void> {
  try {
    await next();
    if (ctx.body === undefined && BODILESS[ctx.status]) answer(ctx, ctx.status, BODILESS[ctx.status]!);
  } catch (error) {
    const refused = refusalOf(error);
    if (refused) {
      if (refused.status === 413) await dropUnreadBody(ctx.req);
      for (const [name, value] of Object.entries(refused.headers ?? {})) ctx.set(name, value);
      return answer(ctx, refused.status, refused.message, refused.extra);
    }
    ctx.state.log?.error({ err: error }, 'unexpected error');
    answer(ctx, 500, Messages.internalError);
  }
}

/** How much of a refused body is read off before its 413, at most: past it the connection just closes. */
export const REFUSED_BODY_DRAIN_BYTES = 64 * 1024 * 1024;

/**
 * Reads and drops what is left of a request body refused as too large (the parsers stop reading at
 * the limit), up to REFUSED_BODY_DRAIN_BYTES. The 413 goes out once the body is all in: a
 * connection closed while the client is still sending, with its bytes unread, is reset, and the
 * client then loses the answer. A body announced, or sent, past that bound is not waited for;
 * that client may see the reset, the price of not reading without end for nothing.
 */
export function dropUnreadBody(req: IncomingMessage): Promise<void> {
  if (req.complete || req.destroyed || Number(req.headers['content-length']) > REFUSED_BODY_DRAIN_BYTES) return Promise.resolve();
  return new Promise((resolve) => {
    let dropped = 0;
    const done = () => {
      req.off('data', drop).off('end', done).off('close', done).off('error', done);
      resolve();
    };
    const drop = (chunk: Buffer) => {
      dropped += chunk.length;
      if (dropped > REFUSED_BODY_DRAIN_BYTES) done();
    };
    // The parser may still pipe it (into a decompressor) or have paused it.
    req.unpipe();
    req.on('data', drop).on('end', done).on('close', done).on('error', done);
    req.resume();
  });
}

/** A failure of the body parser (koa-body: co-body, raw-body, inflation, zlib) as the caller's error. */
export function bodyParseError(error: unknown): HttpError {
  const { status } = error as { status?: number };
  // The rest is read off before the answer (dropUnreadBody), then the connection closes.
  if (status === 413) return new HttpError(413, Messages.bodyTooLarge, undefined, { Connection: 'close' });
  // inflation's only refusal: a Content-Encoding other than gzip, deflate, br and identity.
  if (status === 415) return new HttpError(415, Messages.unsupportedContentEncoding);
  // Only the decompressor fails without an HTTP status: the bytes are not what the header says.
  if (status === undefined) return new HttpError(400, Messages.bodyNotDecodable);
  return new HttpError(400, Messages.malformedJson);
}
