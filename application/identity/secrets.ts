import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/**
 * Client secrets are stored as scrypt hashes with a salt of their own, parameters kept in the
 * hash string (`scrypt$N=16384,r=8,p=1$<salt>$<key>`) so they can be raised later without
 * invalidating secrets already issued.
 */
const PARAMS = { N: 16384, r: 8, p: 1 };
const KEY_BYTES = 32;
const SALT_BYTES = 16;

function derive(secret: string, salt: Buffer, keyBytes: number, options: ScryptOptions): Promise<Buffer> {
  // maxmem must cover 128 * N * r bytes, or node refuses parameters above its 32 MiB default.
  const maxmem = 256 * (options.N ?? 0) * (options.r ?? 0) + 1024 * 1024;
  return new Promise((resolve, reject) =>
    scrypt(secret, salt, keyBytes, { ...options, maxmem }, (error, key) => (error ? reject(error) : resolve(key))),
  );
}

/** A recognizable public id: `cli_` and 24 hex characters. */
export function newClientId(): string {
  return `cli_${randomBytes(12).toString('hex')}`;
}

/** 32 random bytes, base64url: shown once, never stored. */
export function newClientSecret(): string {
  return randomBytes(32).toString('base64url');
}

export async function hashSecret(secret: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const key = await derive(secret, salt, KEY_BYTES, PARAMS);
  return `scrypt$N=${PARAMS.N},r=${PARAMS.r},p=${PARAMS.p}$${salt.toString('base64url')}$${key.toString('base64url')}`;
}

const FORMAT = /^scrypt\$N=(\d+),r=(\d+),p=(\d+)\$([A-Za-z0-9_-]+)\$([A-Za-z0-9_-]+)$/;

/** Constant-time comparison of the derived key; a malformed stored hash never matches. */
export async function verifySecret(secret: string, stored: string): Promise<boolean> {
  const match = FORMAT.exec(stored);
  if (!match) return false;
  const [N, r, p] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const expected = Buffer.from(match[5]!, 'base64url');
  const actual = await derive(secret, Buffer.from(match[4]!, 'base64url'), expected.length, { N, r, p });
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}
