import type { Knex } from 'knex';
import type { CollectionEventData } from '../../domain/collection/events.ts';
import type { SealedHead } from './trail-chain.ts';

export type TrailSeal = SealedHead & {
  signature: string;
  /** RFC 3161 TimeStampToken over the seal's digest (DER, base64); null without a TSA. Absent on an export's head. */
  timestamp?: string | null;
};

/** One entry as the trail listing and the collection detail show it. */
export interface TrailEntry {
  seq: number;
  action: string;
  actorType: string;
  actorId: string | null;
  itemId: string | null;
  recipientId: string | null;
  occurredAt: string;
  payload: Record<string, unknown>;
  entryHash: string;
  chainHash: string;
  /** The signed chain head at this entry (status changes only; null until the sealer signs it). */
  seal: Omit<TrailSeal, 'collectionId' | 'seq'> | null;
}

/** A row of the entries listing joined with its seal (the seal columns null when there is none). */
interface Row {
  seq: number;
  organization_id: string;
  collection_id: string;
  item_id: string | null;
  recipient_id: string | null;
  action: string;
  actor_type: string;
  actor_id: string | null;
  occurred_at: string;
  payload: Record<string, unknown>;
  entry_hash: string;
  chain_hash: string;
  seal_chain_hash: string | null;
  signed_at: string | null;
  key_id: string | null;
  signature: string | null;
  timestamp_token: string | null;
}

const ENTRY_COLUMNS = [
  'e.seq',
  'e.organization_id',
  'e.collection_id',
  'e.item_id',
  'e.recipient_id',
  'e.action',
  'e.actor_type',
  'e.actor_id',
  'e.occurred_at',
  'e.payload',
  'e.entry_hash',
  'e.chain_hash',
];

function entries(db: Knex, organizationId: string, collectionId: string) {
  return db('collection_trail_entries as e')
    .leftJoin('collection_trail_seals as s', function () {
      this.on('s.collection_id', 'e.collection_id').andOn('s.seq', 'e.seq');
    })
    .where({ 'e.organization_id': organizationId, 'e.collection_id': collectionId })
    .select(...ENTRY_COLUMNS, 's.chain_hash as seal_chain_hash', 's.key_id', 's.signed_at', 's.signature', 's.timestamp_token');
}

/** The seal joined to an entry: the head it signed, which differs from the entry's own if the trail was altered. */
function sealOf(r: Row): Omit<TrailSeal, 'collectionId' | 'seq'> | null {
  if (r.signature === null) return null;
  return { chainHash: r.seal_chain_hash!, signedAt: r.signed_at!, keyId: r.key_id!, signature: r.signature, timestamp: r.timestamp_token };
}

function toEntry(r: Row): TrailEntry {
  return {
    seq: r.seq,
    action: r.action,
    actorType: r.actor_type,
    actorId: r.actor_id,
    itemId: r.item_id,
    recipientId: r.recipient_id,
    occurredAt: r.occurred_at,
    payload: r.payload,
    entryHash: r.entry_hash,
    chainHash: r.chain_hash,
    seal: sealOf(r),
  };
}

/** The envelope as recorded: exactly what was hashed. */
export function envelopeOf(r: Omit<Row, 'seal_chain_hash' | 'signed_at' | 'key_id' | 'signature' | 'timestamp_token'>): CollectionEventData {
  return {
    organizationId: r.organization_id,
    collectionId: r.collection_id,
    itemId: r.item_id,
    recipientId: r.recipient_id,
    action: r.action,
    actorType: r.actor_type,
    actorId: r.actor_id,
    occurredAt: r.occurred_at,
    payload: r.payload,
  } as CollectionEventData;
}

/** The most recent entries, newest first (the collection detail carries the 100 most recent). */
export async function recentTrail(db: Knex, organizationId: string, collectionId: string, limit = 100): Promise<TrailEntry[]> {
  return (await entries(db, organizationId, collectionId).orderBy('e.seq', 'desc').limit(limit)).map(toEntry);
}

/** One page, oldest first; null when the organization has no such collection. */
export async function trailPage(db: Knex, organizationId: string, collectionId: string, skip: number, take: number): Promise<{ total: number; entries: TrailEntry[] } | null> {
  const count = await db('collection_trail_entries').where({ organization_id: organizationId, collection_id: collectionId }).count<{ count: string }[]>('* as count');
  const total = Number(count[0]!.count);
  if (total === 0) return null;
  return { total, entries: (await entries(db, organizationId, collectionId).orderBy('e.seq').offset(skip).limit(take)).map(toEntry) };
}

export interface ExportedEntry {
  seq: number;
  entry: CollectionEventData;
  entryHash: string;
  chainHash: string;
  seal: TrailSeal | null;
}

const EXPORT_PAGE = 2000;

/**
 * Every entry, oldest first, read page by page (keyset on seq) so a trail of any length streams
 * in constant memory. Ends where the trail ended when the export began, so entries appended
 * meanwhile never make the export's chain longer than its last seal query saw.
 */
export async function* exportTrail(db: Knex, organizationId: string, collectionId: string, lastSeq: number): AsyncGenerator<ExportedEntry> {
  let after = 0;
  while (after < lastSeq) {
    const rows: Row[] = await entries(db, organizationId, collectionId).where('e.seq', '>', after).andWhere('e.seq', '<=', lastSeq).orderBy('e.seq').limit(EXPORT_PAGE);
    if (!rows.length) return;
    for (const r of rows) {
      const seal = sealOf(r);
      yield { seq: r.seq, entry: envelopeOf(r), entryHash: r.entry_hash, chainHash: r.chain_hash, seal: seal && { collectionId, seq: r.seq, ...seal } };
    }
    after = rows[rows.length - 1]!.seq;
  }
}

/** The last sequence number of a collection's trail in this organization, 0 when it has none. */
export async function lastTrailSeq(db: Knex, organizationId: string, collectionId: string): Promise<number> {
  const row = await db('collection_trail_entries').where({ organization_id: organizationId, collection_id: collectionId }).max<{ max: number | null }[]>('seq as max');
  return row[0]?.max ?? 0;
}

/** The last entry's sequence number and chain hash, null when the organization has no such trail. */
export async function trailHead(db: Knex, organizationId: string, collectionId: string): Promise<{ seq: number; chainHash: string } | null> {
  const row = await db('collection_trail_entries').where({ organization_id: organizationId, collection_id: collectionId }).orderBy('seq', 'desc').first('seq', 'chain_hash');
  return row ? { seq: row.seq, chainHash: row.chain_hash } : null;
}
