import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';
import type { Context } from 'koa';
import type { AppContext } from '../application/context.ts';
import type { Principal } from '../domain/identity/access.ts';
import { IdempotencyStore } from '../platform/idempotency.ts';
import { HttpError } from './errors.ts';

export const IDEMPOTENCY_HEADER = 'Idempotency-Key';
export const REPLAYED_HEADER = 'Idempotent-Replayed';

/** Ours: the spec has no idempotency. */
export const IdempotencyMessages = {
  invalidKey: 'Idempotency-Key inválida: use de 1 a 255 caracteres ASCII visíveis.',
  otherRequest: 'Esta Idempotency-Key já foi usada com outra requisição; use uma chave nova para cada requisição diferente.',
  inFlight: 'Uma requisição com esta Idempotency-Key ainda está em processamento; tente novamente em instantes.',
};

const KEY = /^[\x21-\x7E]{1,255}$/;
const TTL_MS = 24 * 60 * 60 * 1000;
/** Far beyond the longest request (read-your-writes wait, export): only a dead process leaves a claim this old. */
const ABANDONED_AFTER_MS = 5 * 60 * 1000;

export interface IdempotentReply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  raw?: Buffer;
}

/**
 * Replies can hold secrets shown once (a webhook signing secret), so they are kept encrypted
 * under a key derived from the Idempotency-Key, which the table holds only as a hash: the
 * database alone cannot give them back, only the caller that knows the key.
 */
const sealingKey = (key: string, credentialId: string) => Buffer.from(hkdfSync('sha256', key, credentialId, 'idempotent-reply', 32));
const keyHashOf = (key: string) => createHash('sha256').update(key).digest('hex');

function seal(reply: StoredBody, key: string, credentialId: string): Buffer {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', sealingKey(key, credentialId), iv);
  const text = Buffer.concat([cipher.update(JSON.stringify(reply), 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), text]);
}

function open(sealed: Buffer, key: string, credentialId: string): StoredBody {
  const decipher = createDecipheriv('aes-256-gcm', sealingKey(key, credentialId), sealed.subarray(0, 12));
  decipher.setAuthTag(sealed.subarray(12, 28));
  return JSON.parse(Buffer.concat([decipher.update(sealed.subarray(28)), decipher.final()]).toString('utf8'));
}

interface StoredBody {
  body: unknown;
  headers: Record<string, string>;
}

/** JSON with sorted keys: the same body however its fields were ordered. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    return `{${entries
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`)
      .join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

/**
 * Runs `execute` once per (client credential, Idempotency-Key): a repeat with the same route and
 * body gets the first reply again, marked with Idempotent-Replayed; another request under the
 * key gets 422; a repeat while the first is running gets 409. Only successful replies are kept:
 * a refused command changed nothing, so its retry simply runs again. Without the header, it
 * just runs.
 */
export async function runIdempotently(ctx: Context, app: AppContext, principal: Principal, body: unknown, execute: () => Promise<IdempotentReply>): Promise<IdempotentReply> {
  const key = ctx.get(IDEMPOTENCY_HEADER);
  if (!key) return execute();
  if (!KEY.test(key)) throw new HttpError(400, IdempotencyMessages.invalidKey);
  const store = new IdempotencyStore(app.db);
  const fingerprint = createHash('sha256')
    .update(`${ctx.method} ${ctx.path}\n${canonical(body)}`)
    .digest('hex');
  // Keys are kept per client; a console session (no credential) keeps them per user.
  const credentialId = principal.credentialId ?? `user:${principal.userId}`;
  const keyHash = keyHashOf(key);
  const claim = await store.claim({
    credentialId,
    keyHash,
    fingerprint,
    now: app.clock.now(),
    ttlMs: TTL_MS,
    abandonedAfterMs: ABANDONED_AFTER_MS,
  });
  if (claim.kind === 'other-request') throw new HttpError(422, IdempotencyMessages.otherRequest);
  if (claim.kind === 'in-flight') throw new HttpError(409, IdempotencyMessages.inFlight);
  if (claim.kind === 'replay') {
    const { body, headers } = open(claim.reply.sealed, key, credentialId);
    return { status: claim.reply.status, body, headers: { ...headers, [REPLAYED_HEADER]: 'true' } };
  }
  let reply: IdempotentReply;
  try {
    reply = await execute();
  } catch (error) {
    await store.release(credentialId, keyHash);
    throw error;
  }
  // Bytes are not kept (no POST answers a file today): such a reply is simply not replayable.
  if (reply.status >= 400 || reply.raw) await store.release(credentialId, keyHash);
  else await store.complete(credentialId, keyHash, { status: reply.status, sealed: seal({ body: reply.body ?? null, headers: reply.headers ?? {} }, key, credentialId) });
  return reply;
}
