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

const STATUS_OF: Record<DomainErrorKind, number> = {
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

function answer(ctx: Context, status: number, message: string, extra?: Record<string, unknown>): void {
  ctx.status = status;
  ctx.body = { code: status, message, ...extra };
}

/**
 * Every failure leaves as `{code, message}` with `code` equal to the status. Errors we did not
 * expect are logged with their stack and answered with the contract's generic 500 text only.
 */
export async function errorMiddleware(ctx: Context, next: Next): Promise<void> {
  try {
    await next();
    if (ctx.status === 404 && ctx.body === undefined) answer(ctx, 404, Messages.routeNotFound);
    else if (ctx.status === 405 && ctx.body === undefined) answer(ctx, 405, Messages.methodNotAllowed);
  } catch (error) {
    if (error instanceof HttpError || error instanceof DomainError) {
      for (const [name, value] of Object.entries(error.headers ?? {})) ctx.set(name, value);
      const status = error instanceof HttpError ? error.status : STATUS_OF[error.kind];
      return answer(ctx, status, error.message, error.extra);
    }
    const status = (error as { status?: number; statusCode?: number }).status ?? (error as { statusCode?: number }).statusCode;
    // Body parser failures (koa-body / raw-body): bad JSON, too large, bad encoding.
    if (status === 413) return answer(ctx, 413, Messages.bodyTooLarge);
    if (status === 400 || status === 415) return answer(ctx, 400, Messages.malformedJson);
    ctx.state.log?.error({ err: error }, 'unexpected error');
    answer(ctx, 500, Messages.internalError);
  }
}
