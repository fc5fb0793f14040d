import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { ConfigurationError, LEGACY_KID, type Keyring } from '../../config/index.ts';

/** Before key ids: `v1.<iv>.<tag>.<data>`, sealed with the legacy key. */
const V1 = 'v1';
/** `v2.<kid>.<iv>.<tag>.<data>`: the kid names the key, so keys can rotate without resealing. */
const V2 = 'v2';

/**
 * Values that must be read back (webhook signing secrets, legacy apiKeys, personal data keys)
 * cannot be hashed: they are sealed with AES-256-GCM under a key of the SEALING_KEYS ring before
 * they enter an event or a table. Each use derives its own AES key (HKDF, `purpose` as salt), so
 * a value sealed for one use never opens as another; the associated data binds a value to its
 * owner (a subscription id, a key id), so a sealed value copied elsewhere does not open.
 */
export class SecretBox {
  private readonly aesKeys = new Map<string, Buffer>();

  constructor(
    private readonly keyring: Keyring,
    private readonly purpose: string,
  ) {}

  private aesKey(kid: string, sealed: string): Buffer {
    let key = this.aesKeys.get(kid);
    if (!key) {
      const material = this.keyring.get(kid);
      if (!material) throw new ConfigurationError(`a value was sealed with key "${kid}", which ${this.keyring.source} does not hold (${sealed.slice(0, 12)}...): add that key to the ring`);
      key = Buffer.from(hkdfSync('sha256', material.secret, this.purpose, V1, 32));
      this.aesKeys.set(kid, key);
    }
    return key;
  }

  /** Whether a stored text has the exact form of a value sealed with a kid. */
  static isSealed(text: string): boolean {
    return /^v2\.[A-Za-z0-9_-]{1,64}\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]*$/.test(text);
  }

  seal(secret: string, associatedData: string): string {
    const { kid } = this.keyring.primary;
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.aesKey(kid, ''), iv);
    cipher.setAAD(Buffer.from(associatedData));
    const sealed = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
    return [V2, kid, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), sealed.toString('base64url')].join('.');
  }

  /** Throws ConfigurationError when the key is not in the ring, Error when the value was tampered with. */
  open(sealed: string, associatedData: string): string {
    const parts = sealed.split('.');
    const [kid, iv, tag, data] = parts[0] === V1 && parts.length === 4 ? [LEGACY_KID, ...parts.slice(1)] : parts[0] === V2 && parts.length === 5 ? parts.slice(1) : [];
    if (!kid || !iv || !tag || data === undefined) throw new Error('Unknown sealed value format');
    const decipher = createDecipheriv('aes-256-gcm', this.aesKey(kid, sealed), Buffer.from(iv, 'base64url'));
    decipher.setAAD(Buffer.from(associatedData));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
  }
}
