import { createHash, createPrivateKey, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import type { Knex } from 'knex';
import { keyringFor } from '../../../config/index.ts';
import type { Migration } from '../../../platform/database/migrate.ts';
import { SecretBox } from '../../../platform/secrets/secret-box.ts';
import { sealMessage, type SealedHead } from '../../../projections/collection/trail-chain.ts';
import type { AppContext } from '../../context.ts';

/** HKDF salt of the AES key that seals the private keys: a value sealed for another use never opens here. */
const PURPOSE = 'collection-trail-signing-keys';

export const trailKeyMigrations: Migration[] = [
  {
    name: '202611231641_collection_trail-keys',
    async up(knex) {
      // Ed25519 keys that sign trail seals. The private half is sealed with SEALING_KEYS (a copy
      // of the database alone signs nothing); retired keys stay, so old seals remain verifiable.
      await knex.schema.createTable('collection_trail_keys', (t) => {
        t.text('key_id').primary();
        t.text('public_key').notNullable();
        t.text('sealed_private_key').notNullable();
        t.timestamp('created_at', { useTz: true }).notNullable();
        t.timestamp('retired_at', { useTz: true });
      });
      // One key signs at a time: two processes creating the first key at once agree on one.
      await knex.raw('create unique index collection_trail_keys_one_active on collection_trail_keys ((true)) where retired_at is null');
    },
    async down(knex) {
      await knex.schema.dropTable('collection_trail_keys');
    },
  },
];

export interface PublishedTrailKey {
  keyId: string;
  algorithm: 'Ed25519';
  /** SPKI, PEM. */
  publicKey: string;
  createdAt: string;
  retiredAt: string | null;
}

interface SigningKey {
  keyId: string;
  privateKey: KeyObject;
}

/** What the keys need of the service: a command-line tool has these without the workers. */
type KeysContext = Pick<AppContext, 'config' | 'db' | 'clock'>;

const boxFor = (app: KeysContext) => new SecretBox(keyringFor(app.config, 'sealing'), PURPOSE);
/** Opened private keys by key id: rows never change once written, so a key is opened once per process. */
const opened = new Map<string, KeyObject>();

/** The key id names the public key itself: `ed25519-` and 16 hex of its SHA-256. */
function newKeyRow(app: KeysContext) {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const keyId = `ed25519-${createHash('sha256')
    .update(publicKey.export({ type: 'spki', format: 'der' }))
    .digest('hex')
    .slice(0, 16)}`;
  const pkcs8 = privateKey.export({ type: 'pkcs8', format: 'der' }).toString('base64');
  return {
    key_id: keyId,
    public_key: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    sealed_private_key: boxFor(app).seal(pkcs8, keyId),
    created_at: app.clock.now(),
    retired_at: null,
  };
}

async function activeRow(db: Knex) {
  const query = db('collection_trail_keys').whereNull('retired_at');
  // In a sealer's transaction the key row is held (shared) until its seals are written: a rotation
  // waits for them, so no seal is made with a key after the moment it was retired.
  return (db.isTransaction ? query.forShare() : query).first('key_id', 'sealed_private_key');
}

/** The key that signs now; the first call in a deployment generates it. `db`: the caller's transaction, if any. */
export async function activeSigningKey(app: KeysContext, db: Knex = app.db): Promise<SigningKey> {
  let row = await activeRow(db);
  if (!row) {
    await db('collection_trail_keys').insert(newKeyRow(app)).onConflict().ignore();
    row = await activeRow(db);
  }
  let privateKey = opened.get(row.key_id);
  if (!privateKey) {
    privateKey = createPrivateKey({ key: Buffer.from(boxFor(app).open(row.sealed_private_key, row.key_id), 'base64'), format: 'der', type: 'pkcs8' });
    opened.set(row.key_id, privateKey);
  }
  return { keyId: row.key_id, privateKey };
}

/**
 * Retire the signing key and start a new one (`npm run trail-keys`); the retired key stays
 * published and keeps verifying its seals. The retirement time is taken once the sealers holding
 * the old key have finished (clock_timestamp, after the row lock), so every seal of the old key
 * predates it. Returns the new key id.
 */
export async function rotateTrailKey(app: KeysContext): Promise<string> {
  const row = newKeyRow(app);
  await app.db.transaction(async (trx) => {
    const [retired] = await trx('collection_trail_keys')
      .whereNull('retired_at')
      .update({ retired_at: trx.raw('clock_timestamp()') }, ['retired_at']);
    await trx('collection_trail_keys').insert({ ...row, created_at: retired?.retired_at ?? row.created_at });
  });
  return row.key_id;
}

export async function publishedTrailKeys(db: Knex): Promise<PublishedTrailKey[]> {
  const rows = await db('collection_trail_keys').orderBy('created_at').select('key_id', 'public_key', 'created_at', 'retired_at');
  return rows.map((r) => ({
    keyId: r.key_id,
    algorithm: 'Ed25519' as const,
    publicKey: r.public_key,
    createdAt: new Date(r.created_at).toISOString(),
    retiredAt: r.retired_at ? new Date(r.retired_at).toISOString() : null,
  }));
}

/** Ed25519 is deterministic: the same head under the same key always gives the same signature. */
export function signHead(key: SigningKey, head: Omit<SealedHead, 'keyId'>): SealedHead & { signature: string } {
  const sealed = { ...head, keyId: key.keyId };
  return { ...sealed, signature: sign(null, sealMessage(sealed), key.privateKey).toString('base64url') };
}
