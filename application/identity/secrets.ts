import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/**
 * Client secrets and console passwords are stored as scrypt hashes with a salt of their own,
 * parameters kept in the hash string (`scrypt$N=16384,r=8,p=1$<salt>$<key>`) so they can be
 * raised later without invalidating what was hashed before.
 *
 * A client secret is 256 random bits: no guess list reaches it, so it keeps the lighter cost
 * (every API authentication pays it). A password is chosen by a person: it gets OWASP's current
 * scrypt cost (N=2^17, r=8, p=1: 128 MiB and a few hundred milliseconds per try), and a password
 * hashed at a lower cost is hashed again at its next sign-in (needsRehash).
 */
const PARAMS = { N: 16384, r: 8, p: 1 };
export const PASSWORD_PARAMS = { N: 2 ** 17, r: 8, p: 1 };
const KEY_BYTES = 32;
const SALT_BYTES = 16;

function derive(secret: string, salt: Buffer, keyBytes: number, options: ScryptOptions): Promise<Buffer> {
  // maxmem must cover 128 * N * r bytes, or node refuses parameters above its 32 MiB default.
  const maxmem = 256 * (options.N ?? 0) * (options.r ?? 0) + 1024 * 1024;
  return new Promise((resolve, reject) => scrypt(secret, salt, keyBytes, { ...options, maxmem }, (error, key) => (error ? reject(error) : resolve(key))));
}

/** A recognizable public id: `cli_` and 24 hex characters. */
export function newClientId(): string {
  return `cli_${randomBytes(12).toString('hex')}`;
}

/** 32 random bytes, base64url: shown once, never stored. */
export function newClientSecret(): string {
  return randomBytes(32).toString('base64url');
}

export async function hashSecret(secret: string, params: { N: number; r: number; p: number } = PARAMS): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const key = await derive(secret, salt, KEY_BYTES, params);
  return `scrypt$N=${params.N},r=${params.r},p=${params.p}$${salt.toString('base64url')}$${key.toString('base64url')}`;
}

export const hashPassword = (password: string) => hashSecret(password, PASSWORD_PARAMS);

const FORMAT = /^scrypt\$N=(\d+),r=(\d+),p=(\d+)\$([A-Za-z0-9_-]+)\$([A-Za-z0-9_-]+)$/;

/** A stored password hashed at a lower cost than PASSWORD_PARAMS (or unreadable): hash it again once it matched. */
export function needsRehash(stored: string): boolean {
  const match = FORMAT.exec(stored);
  return !match || Number(match[1]) < PASSWORD_PARAMS.N || Number(match[2]) < PASSWORD_PARAMS.r || Number(match[3]) < PASSWORD_PARAMS.p;
}

/** Constant-time comparison of the derived key; a malformed stored hash never matches. */
export async function verifySecret(secret: string, stored: string): Promise<boolean> {
  const match = FORMAT.exec(stored);
  if (!match) return false;
  const [N, r, p] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const expected = Buffer.from(match[5]!, 'base64url');
  const actual = await derive(secret, Buffer.from(match[4]!, 'base64url'), expected.length, { N, r, p });
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}
