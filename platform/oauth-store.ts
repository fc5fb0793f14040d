import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import type { Migration } from './database/migrate.ts';

const TABLE = 'oauth_artifacts';

export const oauthStoreMigrations: Migration[] = [
  {
    // What the OAuth authorization server keeps between requests (clients, interactions, codes,
    // tokens, grants): short-lived protocol state, not domain facts, so a table and not events.
    name: '202611291100_oauth_artifacts',
    async up(knex) {
      await knex.schema.createTable(TABLE, (t) => {
        t.text('model').notNullable();
        t.text('id').notNullable();
        t.jsonb('payload').notNullable();
        t.text('grant_id').index();
        t.text('uid').index();
        t.text('user_code');
        // A grant's user, to list and revoke a user's authorizations.
        t.text('account_id');
        t.timestamp('expires_at', { useTz: true }).index();
        t.timestamp('consumed_at', { useTz: true });
        t.primary(['model', 'id']);
        t.index(['model', 'account_id']);
      });
    },
    async down(knex) {
      await knex.schema.dropTable(TABLE);
    },
  },
  {
    // Rows of bearer values (tokens, codes) held the value itself as their id and in
    // their payload's jti: converted in place to the hash the store now keeps, so tokens already
    // issued go on working and no clear one stays. Its name sorts before the table's creation
    // (the timestamps were handed out that way): on a new database there is no table yet and
    // nothing to convert, and the rows written later are hashed by the store itself.
    name: '202611290430_oauth_artifacts_hash_tokens',
    async up(knex) {
      if (!(await knex.schema.hasTable(TABLE))) return;
      await knex(TABLE)
        .whereIn('model', [...HASHED_MODELS])
        .update({ id: knex.raw("encode(sha256(convert_to(id, 'UTF8')), 'hex')"), payload: knex.raw("payload - 'jti'") });
    },
    async down() {
      // A hash cannot be turned back into its token: the rows stay hashed.
    },
  },
];

/**
 * The models whose id is a bearer value: who holds it is let in (an access or refresh token, a
 * code, a registration token). The table keeps its SHA-256 only, so a read of the table (a
 * backup, a leaked dump) hands out no working token; random values of 256 bits need no salt nor
 * slow hash. Models also looked up by another field (Session by uid, DeviceCode by user code)
 * are not among them: such a lookup could not give the value back.
 */
const HASHED_MODELS: ReadonlySet<string> = new Set(['AccessToken', 'RefreshToken', 'AuthorizationCode', 'RegistrationAccessToken', 'ClientCredentials']);

const tokenHash = (value: string) => createHash('sha256').update(value).digest('hex');

/** The payload oidc-provider hands its adapter (only the fields indexed here are named). */
export interface OAuthPayload {
  grantId?: string;
  uid?: string;
  userCode?: string;
  accountId?: string;
  consumed?: number;
  [field: string]: unknown;
}

/**
 * Registration is open, so a client nobody ever let in must not stay forever: a client lives this
 * long after its registration, and as long again after its latest grant ends.
 */
const CLIENT_IDLE_TTL_SECONDS = 30 * 24 * 3600;

/** Expired rows are deleted by the writes themselves, at most this often per process. */
const PURGE_EVERY_MS = 10 * 60_000;
let lastPurge = 0;

/**
 * oidc-provider's storage contract (one instance per model name) on PostgreSQL, so that every
 * process of the service sees the same codes, tokens and grants and a revocation is immediate.
 */
export class OAuthStore {
  private readonly hashed: boolean;

  constructor(
    private readonly db: Knex,
    private readonly model: string,
  ) {
    this.hashed = HASHED_MODELS.has(model);
  }

  /** The row's id: the value's hash for a bearer value, the id itself otherwise. */
  private key(id: string): string {
    return this.hashed ? tokenHash(id) : id;
  }

  async upsert(id: string, payload: OAuthPayload, expiresIn?: number): Promise<void> {
    if (this.model === 'Client') expiresIn ??= CLIENT_IDLE_TTL_SECONDS;
    // The payload repeats the value as its jti: find() puts it back from the value it is asked for.
    const { jti: _value, ...kept } = payload;
    const row = {
      model: this.model,
      id: this.key(id),
      payload: JSON.stringify(this.hashed ? kept : payload),
      grant_id: payload.grantId ?? null,
      uid: payload.uid ?? null,
      user_code: payload.userCode ?? null,
      account_id: this.model === 'Grant' ? (payload.accountId ?? null) : null,
      expires_at: expiresIn ? new Date(Date.now() + expiresIn * 1000) : null,
    };
    await this.db(TABLE).insert(row).onConflict(['model', 'id']).merge();
    if (this.model === 'Grant' && typeof payload.clientId === 'string' && expiresIn) await this.keepClient(payload.clientId, expiresIn + CLIENT_IDLE_TTL_SECONDS);
    await this.purgeExpired();
  }

  async find(id: string): Promise<OAuthPayload | undefined> {
    const found = await this.first({ id: this.key(id) });
    return found && this.hashed ? { ...found, jti: id } : found;
  }

  findByUid(uid: string): Promise<OAuthPayload | undefined> {
    return this.first({ uid });
  }

  findByUserCode(userCode: string): Promise<OAuthPayload | undefined> {
    return this.first({ user_code: userCode });
  }

  async consume(id: string): Promise<void> {
    await this.db(TABLE)
      .where({ model: this.model, id: this.key(id) })
      .update({ consumed_at: this.db.fn.now() });
  }

  async destroy(id: string): Promise<void> {
    await this.db(TABLE)
      .where({ model: this.model, id: this.key(id) })
      .delete();
  }

  async revokeByGrantId(grantId: string): Promise<void> {
    await revokeGrant(this.db, grantId);
  }

  private async keepClient(clientId: string, seconds: number): Promise<void> {
    await this.db(TABLE)
      .where({ model: 'Client', id: clientId })
      .update({ expires_at: this.db.raw("greatest(expires_at, now() + ? * interval '1 second')", [seconds]) });
  }

  private async first(where: Record<string, string>): Promise<OAuthPayload | undefined> {
    const row = await this.db(TABLE)
      .where({ model: this.model, ...where })
      .where((q) => q.whereNull('expires_at').orWhere('expires_at', '>', this.db.fn.now()))
      .first('payload', 'consumed_at');
    if (!row) return undefined;
    const payload = row.payload as OAuthPayload;
    return row.consumed_at ? { ...payload, consumed: Math.floor((row.consumed_at as Date).getTime() / 1000) } : payload;
  }

  private async purgeExpired(): Promise<void> {
    if (Date.now() - lastPurge < PURGE_EVERY_MS) return;
    lastPurge = Date.now();
    await this.db(TABLE).where('expires_at', '<', this.db.fn.now()).delete();
  }
}

/** Ends a grant: the grant itself and every code and token issued under it. */
export async function revokeGrant(db: Knex, grantId: string): Promise<void> {
  await db(TABLE).where({ grant_id: grantId }).orWhere({ model: 'Grant', id: grantId }).delete();
}

export interface GrantRow {
  grantId: string;
  clientId: string;
  clientName: string | null;
  expiresAt: Date | null;
}

/** A user's live grants with the name their client registered, newest expiry first. */
export async function grantsOfAccount(db: Knex, accountId: string): Promise<GrantRow[]> {
  const rows = await db(`${TABLE} as g`)
    .leftJoin(`${TABLE} as c`, (join) => join.on('c.id', '=', db.raw("g.payload->>'clientId'")).andOn('c.model', '=', db.raw("'Client'")))
    .where({ 'g.model': 'Grant', 'g.account_id': accountId })
    .where((q) => q.whereNull('g.expires_at').orWhere('g.expires_at', '>', db.fn.now()))
    .orderBy('g.expires_at', 'desc')
    .select({ grantId: 'g.id', clientId: db.raw("g.payload->>'clientId'"), clientName: db.raw("c.payload->>'client_name'"), expiresAt: 'g.expires_at' });
  return rows as GrantRow[];
}
