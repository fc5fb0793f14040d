import type { Knex } from 'knex';
import { COLLECTION_EVENT_TYPES } from '../../domain/collection/events.ts';
import type { RecordedEvent } from '../../platform/eventstore/port.ts';
import type { Projection } from '../../platform/projections/projection.ts';
import { SEALED_EVENT_TYPES, TRAIL_GENESIS, chainHashOf, entryHashOf, trailEnvelope } from './trail-chain.ts';

export const COLLECTION_TRAIL_PROJECTION = 'collection-trail';

interface Head {
  seq: number;
  chainHash: string;
}

/** The last entry of each collection of the batch, read once and then carried in memory. */
async function headOf(trx: Knex.Transaction, heads: Map<string, Head>, collectionId: string): Promise<Head> {
  let head = heads.get(collectionId);
  if (!head) {
    const row = await trx('collection_trail_entries').where({ collection_id: collectionId }).orderBy('seq', 'desc').first('seq', 'chain_hash');
    head = row ? { seq: row.seq, chainHash: row.chain_hash } : { seq: 0, chainHash: TRAIL_GENESIS };
    heads.set(collectionId, head);
  }
  return head;
}

const INSERT_CHUNK = 500;

/** A chain head waiting for the trail sealer. */
interface Queued {
  collection_id: string;
  seq: number;
  chain_hash: string;
  signed_at: string;
  seal_point: boolean;
}

/**
 * The trail: every event of a collection stream as one entry, chained to the one before.
 * Sequence numbers follow the stream's order and start at 1, so a rebuild gives every entry the
 * same number and hash. An event already applied (by id) is skipped, so a retried batch adds
 * nothing. The entry hash an event got first is kept in collection_trail_hashes and reused, so
 * a rebuild after a personal-data erasure keeps the chain and the seals valid and only that
 * entry stops matching its hash.
 */
export const collectionTrailProjection: Projection = {
  name: COLLECTION_TRAIL_PROJECTION,
  eventTypes: COLLECTION_EVENT_TYPES,
  tables: ['collection_trail_entries', 'collection_trail_unsealed'],
  async handle(events: readonly RecordedEvent[], trx: Knex.Transaction) {
    const ids = events.map((e) => e.id);
    const applied = new Set<string>((await trx('collection_trail_entries').whereIn('event_id', ids).pluck('event_id')) as string[]);
    const known = new Map<string, string>(
      ((await trx('collection_trail_hashes').whereIn('event_id', ids).select('event_id', 'entry_hash')) as Array<{ event_id: string; entry_hash: string }>).map((r) => [r.event_id, r.entry_hash]),
    );
    const heads = new Map<string, Head>();
    const rows: Record<string, unknown>[] = [];
    const unsealed: Queued[] = [];
    const tails = new Map<string, Queued>();
    for (const event of events) {
      if (applied.has(event.id)) continue;
      const entry = trailEnvelope(event.data);
      const head = await headOf(trx, heads, entry.collectionId);
      const entryHash = known.get(event.id) ?? entryHashOf(entry);
      const next = { seq: head.seq + 1, chainHash: chainHashOf(head.chainHash, entryHash) };
      heads.set(entry.collectionId, next);
      const sealPoint = SEALED_EVENT_TYPES.includes(event.type);
      rows.push({
        collection_id: entry.collectionId,
        seq: next.seq,
        event_id: event.id,
        organization_id: entry.organizationId,
        item_id: entry.itemId,
        recipient_id: entry.recipientId,
        action: entry.action,
        actor_type: entry.actorType,
        actor_id: entry.actorId,
        occurred_at: entry.occurredAt,
        payload: JSON.stringify(entry.payload),
        entry_hash: entryHash,
        chain_hash: next.chainHash,
        seal_point: sealPoint,
      });
      // The seal's time is the entry's own (a status change's), so signing it again gives the same bytes.
      const queued = { collection_id: entry.collectionId, seq: next.seq, chain_hash: next.chainHash, signed_at: entry.occurredAt, seal_point: sealPoint };
      if (sealPoint) unsealed.push(queued);
      else tails.set(entry.collectionId, queued);
    }
    // Of the other entries only each collection's last of the batch waits: its seal covers the ones before it.
    for (const [collectionId, tail] of tails) if (tail.seq === heads.get(collectionId)!.seq) unsealed.push(tail);
    for (let i = 0; i < rows.length; i += INSERT_CHUNK) {
      const chunk = rows.slice(i, i + INSERT_CHUNK);
      await trx('collection_trail_entries').insert(chunk);
      await trx('collection_trail_hashes')
        .insert(chunk.map((r) => ({ event_id: r.event_id, entry_hash: r.entry_hash })))
        .onConflict('event_id')
        .ignore();
    }
    // A head already signed (before a rebuild) keeps its seal, an entry a later seal covers needs
    // none; only a new one waits for the sealer.
    for (const head of unsealed) {
      const sealed = head.seal_point
        ? await trx('collection_trail_seals').where({ collection_id: head.collection_id, seq: head.seq, chain_hash: head.chain_hash }).first('seq')
        : await trx('collection_trail_seals').where({ collection_id: head.collection_id }).andWhere('seq', '>=', head.seq).first('seq');
      if (!sealed) await trx('collection_trail_unsealed').insert(head).onConflict(['collection_id', 'seq']).ignore();
    }
  },
};
