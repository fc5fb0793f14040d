import type { Readable } from 'node:stream';

/**
 * Files too large or too many for the database's blob table (financial statement PDFs, up to
 * 10 x 50 MB a batch), kept by key. Keys are slash-separated segments of letters, digits, `.`, `_`
 * and `-` (no segment starting with a dot): `financial/<orgId>/<reportId>/<blobId>.pdf`.
 */
export interface ObjectStore {
  /**
   * Store `body` under `key`, replacing any object there. A stream is never buffered whole. With
   * `expectedBytes` the body must have exactly that many bytes (ObjectSizeMismatchError
   * otherwise, and nothing is stored); `maxBytes` refuses a longer body the same way.
   */
  put(key: string, body: Buffer | Readable, contentType: string, options?: { expectedBytes?: number; maxBytes?: number }): Promise<void>;
  /** The whole object, or null when absent. Call head first when the size matters. */
  get(key: string): Promise<Buffer | null>;
  head(key: string): Promise<ObjectHead | null>;
  /** Absent keys are not an error. */
  delete(keys: readonly string[]): Promise<void>;
  /**
   * A URL the client PUTs the object to directly (S3 presigned PUT binding Content-Type and
   * Content-Length), or null when the store is local and the service receives uploads itself.
   */
  presignPut(key: string, request: PresignRequest): string | null;
}

export interface ObjectHead {
  sizeBytes: number;
}

export interface PresignRequest {
  contentType: string;
  sizeBytes: number;
  expiresInSeconds: number;
  now: Date;
}

/** A body of another length than announced, or over the limit: nothing was stored. */
export class ObjectSizeMismatchError extends Error {
  constructor(
    readonly key: string,
    readonly receivedAtLeast: number,
  ) {
    super(`object ${key}: body length differs from the expected or allowed size (${receivedAtLeast} bytes or more received)`);
    this.name = 'ObjectSizeMismatchError';
  }
}

/** The store could not be reached or refused the operation (not the caller's fault). */
export class ObjectStoreError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ObjectStoreError';
  }
}

const KEY = /^[A-Za-z0-9_-][A-Za-z0-9._-]*(\/[A-Za-z0-9_-][A-Za-z0-9._-]*)*$/;

/** Keys name files (local) and URL paths (S3): anything else (`..`, `/x`, `a//b`, spaces) is refused before use. */
export function assertObjectKey(key: string): void {
  if (key.length > 512 || !KEY.test(key)) throw new ObjectStoreError(`invalid object key: ${JSON.stringify(key).slice(0, 80)}`);
}
