import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import type { Keyring } from '../../config/index.ts';
import { emailClaimDecider } from '../../domain/identity/email-decider.ts';
import { identityStreams } from '../../domain/identity/events.ts';
import { DomainError } from '../../domain/shared/errors.ts';
import type { EventStore } from '../../platform/eventstore/port.ts';
import { subjectId } from '../../platform/personal-data/index.ts';
import { handleCommand } from '../command-handler.ts';

/**
 * The name of the stream that holds an e-mail address (`email-<name>`): an HMAC with the
 * personal-data pepper, so no stream name gives an address back. An unkeyed hash of an address
 * is reversed by hashing a list of addresses (a company's naming pattern, a leaked list).
 */
export const emailClaimName = (pepper: Keyring, email: string) => subjectId(pepper, `email:${email}`).slice(0, 32);

/** How claim streams were named before the key: the first 32 hex of SHA-256 of the address. */
const unkeyedName = (email: string) => createHash('sha256').update(email).digest('hex').slice(0, 32);

/**
 * Move the claims of the addresses users hold from streams named by the unkeyed hash to the keyed
 * name. A schema migration has no pepper, so every start runs this after migrating (as the
 * registry lookups do); once moved, a stream is not found under its old name again, so later
 * starts move nothing.
 *
 * On PostgreSQL the stream is renamed where it stands (its events keep their positions and
 * revisions; one transaction). EventStoreDB cannot rename: the holder claims the keyed stream
 * anew (a retried claim of the same user decides nothing) and the old stream is left.
 * Addresses no user holds any more (changed since) are not in the read table: their released
 * claims keep their old names, holding no one.
 */
export async function rekeyEmailClaims(db: Knex, pepper: Keyring, store?: EventStore): Promise<number> {
  const holders: Array<{ id: string; organization_id: string; email: string }> = await db('identity_users').whereNotNull('email').select('id', 'organization_id', 'email');
  if (store) {
    for (const holder of holders) {
      const claim = { type: 'ClaimEmail' as const, userId: holder.id, organizationId: holder.organization_id, at: new Date() };
      // Claimed by another user meanwhile (through the keyed name): that claim stands, as on PostgreSQL.
      await handleCommand(store, identityStreams.email(emailClaimName(pepper, holder.email)), emailClaimDecider, claim).catch((error: unknown) => {
        if (!(error instanceof DomainError && error.kind === 'conflict')) throw error;
      });
    }
    return holders.length;
  }
  const from = holders.map((h) => identityStreams.email(unkeyedName(h.email)));
  const to = holders.map((h) => identityStreams.email(emailClaimName(pepper, h.email)));
  if (!from.length) return 0;
  return db.transaction(async (trx) => {
    // Skipped when the keyed stream exists already (a claim made by a newer process meanwhile): the unique names stay unique.
    const { rows } = (await trx.raw(
      `update streams s set stream_name = p.to_name
         from unnest(?::text[], ?::text[]) as p(from_name, to_name)
        where s.stream_name = p.from_name and not exists (select 1 from streams t where t.stream_name = p.to_name)
        returning p.from_name, p.to_name`,
      [from, to],
    )) as { rows: Array<{ from_name: string; to_name: string }> };
    if (rows.length) {
      await trx.raw(`update events e set stream_name = p.to_name from unnest(?::text[], ?::text[]) as p(from_name, to_name) where e.stream_name = p.from_name`, [
        rows.map((r) => r.from_name),
        rows.map((r) => r.to_name),
      ]);
    }
    return rows.length;
  });
}
