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
      for (const [name, value] of Object.entries(refused.headers ?? {})) ctx.set(name, value);
      return answer(ctx, refused.status, refused.message, refused.extra);
    }
    ctx.state.log?.error({ err: error }, 'unexpected error');
    answer(ctx, 500, Messages.internalError);
  }
}

/** A failure of the body parser (koa-body: co-body, raw-body, inflation, zlib) as the caller's error. */
export function bodyParseError(error: unknown): HttpError {
  const { status } = error as { status?: number };
  // Too much to read off: the connection closes after the answer.
  if (status === 413) return new HttpError(413, Messages.bodyTooLarge, undefined, { Connection: 'close' });
  // inflation's only refusal: a Content-Encoding other than gzip, deflate, br and identity.
  if (status === 415) return new HttpError(415, Messages.unsupportedContentEncoding);
  // Only the decompressor fails without an HTTP status: the bytes are not what the header says.
  if (status === undefined) return new HttpError(400, Messages.bodyNotDecodable);
  return new HttpError(400, Messages.malformedJson);
}
