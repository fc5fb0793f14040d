/**
 * A command refused by the domain. `kind` says what went wrong in domain words; the HTTP layer
 * maps kinds to statuses, so the domain never knows about HTTP. `message` is the Portuguese text
 * the caller sees (a contract constant from messages.ts where the spec gives one).
 */
export type DomainErrorKind =
  | 'invalid' // 400: the input breaks a domain rule
  | 'unauthenticated' // 401
  | 'forbidden' // 403
  | 'not_found' // 404
  | 'conflict' // 409: does not fit the current state
  | 'unprocessable' // 422
  | 'too_many' // 429
  | 'upstream' // 502: a dependency did not answer
  | 'partial'; // 503: part done, part not

export class DomainError extends Error {
  constructor(
    readonly kind: DomainErrorKind,
    message: string,
    /** Extra fields the spec lets a caller resume with (operationResultId, reportId, ...). */
    readonly extra?: Record<string, unknown>,
    /** Response headers the refusal implies (Retry-After on a 429); the HTTP layer sets them. */
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = 'DomainError';
  }
}
