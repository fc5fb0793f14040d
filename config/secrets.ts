import { hkdfSync, randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, linkSync, mkdirSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from './schema.ts';

/** A setting that cannot work as given: the message names the setting, the value's source and the fix. */
export class ConfigurationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigurationError';
  }
}

export interface Key {
  kid: string;
  secret: string;
}

/** Several keys during a rotation: the first signs and seals, every one verifies and opens. */
export interface Keyring {
  primary: Key;
  get(kid: string): Key | undefined;
  /** Where the keys came from (a setting or a file), for error messages. */
  source: string;
}

/**
 * The kid of a key given as a bare secret (no `kid:`), which is how every secret was kept before
 * key ids existed: tokens and sealed values without a kid are checked against it.
 */
export const LEGACY_KID = 'legacy';

/**
 * The key of one purpose drawn from a key of a ring (HKDF-SHA256, the purpose as its info): each
 * use of JWT_KEYS (access tokens, the console's form tokens, the OAuth server's cookies) signs
 * with a key of its own, so what one use signs means nothing to another, and a key that leaks
 * from one use does not give the others. Rotation is the ring's: each kid derives its own.
 */
export function purposeKey(secret: string, purpose: string, bytes = 32): Buffer {
  return Buffer.from(hkdfSync('sha256', secret, '', purpose, bytes));
}

const KID = /^[A-Za-z0-9_-]{1,64}$/;
const MIN_SECRET_LENGTH = 32;

/** `kid:secret,kid:secret` (or one per line), or JSON `[{"kid": "...", "secret": "..."}]`. */
export function parseKeyring(text: string, source: string): Keyring {
  const trimmed = text.trim();
  let keys: Key[];
  if (trimmed.startsWith('[')) {
    try {
      keys = (JSON.parse(trimmed) as Array<Partial<Key>>).map((k) => ({ kid: String(k.kid ?? ''), secret: String(k.secret ?? '') }));
    } catch {
      throw new ConfigurationError(`${source}: not valid JSON; expected [{"kid": "...", "secret": "..."}]`);
    }
  } else {
    keys = trimmed
      .split(/[,\n]/)
      .map((entry) => entry.trim())
      .filter(Boolean)
      .map((entry) => {
        const colon = entry.indexOf(':');
        return colon === -1 ? { kid: LEGACY_KID, secret: entry } : { kid: entry.slice(0, colon).trim(), secret: entry.slice(colon + 1).trim() };
      });
  }
  if (keys.length === 0) throw new ConfigurationError(`${source}: no key; expected kid:secret[,kid:secret...]`);
  const byKid = new Map<string, Key>();
  for (const key of keys) {
    if (!KID.test(key.kid)) throw new ConfigurationError(`${source}: key id "${key.kid}" must be 1 to 64 letters, digits, _ or -`);
    if (key.secret.length < MIN_SECRET_LENGTH) throw new ConfigurationError(`${source}: the secret of key "${key.kid}" is shorter than ${MIN_SECRET_LENGTH} characters`);
    if (byKid.has(key.kid)) throw new ConfigurationError(`${source}: key id "${key.kid}" appears twice`);
    byKid.set(key.kid, key);
  }
  return { primary: keys[0]!, get: (kid) => byKid.get(kid), source };
}

/**
 * Create `file` with `content` unless it exists, and return what the file holds. The content is
 * written and synced under a temporary name and then hard-linked into place: link never replaces
 * an existing file, so of two processes starting at once exactly one wins and both read the
 * winner's complete file (a plain create-then-write lets the loser read it half written).
 */
export function createOnce(file: string, content: () => string): string {
  const temporary = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  const fd = openSync(temporary, 'wx', 0o600);
  try {
    writeSync(fd, content());
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    linkSync(temporary, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    unlinkSync(temporary);
  }
  const text = readFileSync(file, 'utf8').trim();
  if (!text) throw new ConfigurationError(`${file} is empty: delete it to have a new secret generated, or put the secret in it`);
  return text;
}

/**
 * A secret that must exist but has no safe default: generated once and kept in DATA_DIR with
 * owner-only permissions, so restarts (and other processes on the same DATA_DIR) agree on it.
 */
export function loadOrCreateSecret(dataDir: string, name: string, bytes = 48): string {
  mkdirSync(dataDir, { recursive: true });
  return createOnce(join(dataDir, `${name}.secret`), () => randomBytes(bytes).toString('base64url'));
}

type SecretSetting = { [K in keyof Config]-?: Config[K] extends string | undefined ? K : never }[keyof Config];

interface SecretSpec {
  /** The setting holding the keys themselves. */
  value: SecretSetting;
  /** The setting naming a file that holds them. */
  file: SecretSetting;
  /** The file in DATA_DIR generated when neither is set (names kept from before key ids). */
  generated: string;
  /** An older setting still read: a single secret, kid `legacy`. */
  alias?: SecretSetting;
}

export const SECRETS = {
  jwt: { value: 'JWT_KEYS', file: 'JWT_KEYS_FILE', generated: 'jwt', alias: 'JWT_SECRET' },
  sealing: { value: 'SEALING_KEYS', file: 'SEALING_KEYS_FILE', generated: 'webhook-signing-key' },
  downloads: { value: 'DOWNLOAD_URL_KEYS', file: 'DOWNLOAD_URL_KEYS_FILE', generated: 'downloads' },
  pepper: { value: 'PERSONAL_DATA_PEPPER', file: 'PERSONAL_DATA_PEPPER_FILE', generated: 'personal-data-pepper' },
} as const satisfies Record<string, SecretSpec>;

export type SecretName = keyof typeof SECRETS;

function readKeyring(config: Config, spec: SecretSpec): Keyring {
  const given = [spec.value, spec.file, spec.alias].filter((setting): setting is SecretSetting => !!setting && config[setting] !== undefined);
  if (given.length > 1) throw new ConfigurationError(`${given.join(' and ')} are both set: keep one`);
  const setting = given[0];
  if (setting === spec.file) {
    const path = config[setting]!;
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (error) {
      throw new ConfigurationError(`${setting}=${path} cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
    }
    return parseKeyring(text, `${setting}=${path}`);
  }
  if (setting && setting === spec.alias) return parseKeyring(JSON.stringify([{ kid: LEGACY_KID, secret: config[setting] }]), setting);
  if (setting) return parseKeyring(config[setting]!, setting);
  mkdirSync(config.DATA_DIR, { recursive: true });
  const file = join(config.DATA_DIR, `${spec.generated}.secret`);
  const text = createOnce(file, () => `k${randomBytes(4).toString('hex')}:${randomBytes(48).toString('base64url')}`);
  return parseKeyring(text, `${file} (generated because neither ${spec.value} nor ${spec.file} is set)`);
}

const loaded = new Map<string, Keyring>();

/**
 * The keys of one secret, from its setting, its file setting or DATA_DIR, read once per process
 * and configuration. The service loads every one at start, so a bad or missing key stops it there
 * with a ConfigurationError instead of failing the first request that signs.
 */
export function keyringFor(config: Config, name: SecretName): Keyring {
  const spec: SecretSpec = SECRETS[name];
  const cacheKey = JSON.stringify([name, config.DATA_DIR, config[spec.value], config[spec.file], spec.alias && config[spec.alias]]);
  let keyring = loaded.get(cacheKey);
  if (!keyring) loaded.set(cacheKey, (keyring = readKeyring(config, spec)));
  return keyring;
}

export function loadAllKeyrings(config: Config): void {
  for (const name of Object.keys(SECRETS) as SecretName[]) keyringFor(config, name);
}
