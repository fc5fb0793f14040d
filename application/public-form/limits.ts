import type { Knex } from 'knex';
import { brasiliaDay } from '../../domain/public-form/form.ts';
import type { Keyring } from '../../config/index.ts';
import { subjectId } from '../../platform/personal-data/index.ts';

const HOUR_MS = 3_600_000;

/**
 * Takes one unit of a counter unless it is at `limit`: one statement, so two submissions at once
 * cannot both take the last unit. True when taken.
 */
async function take(db: Knex, table: string, key: Record<string, Knex.Value>, limit: number): Promise<boolean> {
  const columns = Object.keys(key);
  const result = await db.raw(
    `insert into ${table} (${columns.join(', ')}, count) values (${columns.map(() => '?').join(', ')}, 1)
     on conflict (${columns.join(', ')}) do update set count = ${table}.count + 1 where ${table}.count < ?
     returning count`,
    [...Object.values(key), limit],
  );
  return result.rows.length === 1;
}

const giveBack = (db: Knex, table: string, key: Record<string, Knex.Value>) => db(table).where(key).decrement('count', 1);

export interface PublicFormLimits {
  perAddressPerHour: number;
  dailyCeiling: number;
}

export type Reservation = { ok: true; release(): Promise<void> } | { ok: false; reason: 'ADDRESS' | 'CEILING' };

/**
 * The abuse limits of one organization's public forms: at most `perAddressPerHour` submissions
 * from one client address in a clock hour, and at most `dailyCeiling` collections in a Brasília
 * day, after which the forms are off until midnight there. The address is kept as an HMAC with
 * the pepper (the key behind subject ids): a plain hash of an IPv4 address is reversed by trying
 * the four billion of them, so a leaked table would say who used the form.
 */
export class PublicFormCounters {
  constructor(
    private readonly db: Knex,
    private readonly limits: PublicFormLimits,
    private readonly pepper: Keyring,
  ) {}

  async switchedOffToday(organizationId: string, now: Date): Promise<boolean> {
    const row = await this.db('public_form_daily')
      .where({ organization_id: organizationId, day: brasiliaDay(now) })
      .first('count');
    return (row?.count ?? 0) >= this.limits.dailyCeiling;
  }

  /** One submission's units, taken before the collection is created and given back if it is not. */
  async reserve(organizationId: string, address: string, now: Date): Promise<Reservation> {
    const windowStart = new Date(Math.floor(now.getTime() / HOUR_MS) * HOUR_MS);
    const addressKey = { organization_id: organizationId, address_hash: subjectId(this.pepper, `public-form-address:${organizationId}:${address}`), window_start: windowStart };
    // Past windows count for nothing: dropped as the organization's forms are used.
    await this.db('public_form_addresses').where({ organization_id: organizationId }).andWhere('window_start', '<', windowStart).delete();
    if (!(await take(this.db, 'public_form_addresses', addressKey, this.limits.perAddressPerHour))) return { ok: false, reason: 'ADDRESS' };
    const dayKey = { organization_id: organizationId, day: brasiliaDay(now) };
    if (!(await take(this.db, 'public_form_daily', dayKey, this.limits.dailyCeiling))) {
      await giveBack(this.db, 'public_form_addresses', addressKey);
      return { ok: false, reason: 'CEILING' };
    }
    return {
      ok: true,
      release: async () => {
        await giveBack(this.db, 'public_form_daily', dayKey);
        await giveBack(this.db, 'public_form_addresses', addressKey);
      },
    };
  }
}
