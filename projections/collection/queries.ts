import type { Knex } from 'knex';
import { countOf } from '../../platform/database/knex.ts';
import { OPERATOR_ITEM_STATUSES, type CollectionStatus } from '../../domain/collection/enums.ts';
import type { CollectionState, ItemState } from '../../domain/collection/state.ts';
import { hashLinkToken } from '../../platform/link-token.ts';

export interface RecipientLinkRow {
  organizationId: string;
  collectionId: string;
  recipientId: string;
  linkVersion: number;
}

/** Who a link token belongs to, by its hash; null for an unknown token or a replaced (older) version. */
export async function findRecipientByToken(db: Knex, token: string): Promise<RecipientLinkRow | null> {
  if (!/^[A-Za-z0-9_-]{20,100}$/.test(token)) return null;
  const row = await db('collection_links')
    .where({ link_hash: hashLinkToken(token) })
    .first();
  return row ? { organizationId: row.organization_id, collectionId: row.collection_id, recipientId: row.recipient_id, linkVersion: row.link_version } : null;
}

/** The folded state of one collection of the organization (operator detail and recipient page); null when absent or another tenant's. */
export async function collectionDetail(db: Knex, organizationId: string, collectionId: string): Promise<CollectionState | null> {
  const row = await db('collection_collections').where({ id: collectionId, organization_id: organizationId }).first('state');
  return row ? (row.state as CollectionState) : null;
}

export interface CollectionFilter {
  status?: CollectionStatus;
  registryId?: string;
  templateSlug?: string;
  /** Part of the subject's name (any case) or of its CPF/CNPJ digits. */
  search?: string;
  /** Creation period, inclusive bounds (ISO instants). */
  from?: string;
  to?: string;
  skip: number;
  take: number;
}

export async function listCollections(db: Knex, organizationId: string, filter: CollectionFilter): Promise<{ total: number; items: CollectionState[] }> {
  const query = db('collection_collections').where({ organization_id: organizationId });
  if (filter.status) query.andWhere({ status: filter.status });
  if (filter.registryId) query.andWhere({ registry_id: filter.registryId });
  if (filter.templateSlug) query.andWhere({ template_slug: filter.templateSlug });
  if (filter.from) query.andWhere('created_at', '>=', filter.from);
  if (filter.to) query.andWhere('created_at', '<=', filter.to);
  if (filter.search) {
    const text = `%${filter.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    const digits = filter.search.replace(/\D/g, '');
    query.andWhere((q) => {
      q.whereILike('subject_name', text);
      if (digits) q.orWhere('subject_document', 'like', `%${digits}%`);
    });
  }
  const total = await countOf(query);
  const rows = await query
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .offset(filter.skip)
    .limit(filter.take)
    .select('state');
  return { total, items: rows.map((r) => r.state as CollectionState) };
}

export interface QueueEntry {
  collection: CollectionState;
  item: ItemState;
}

/** Items waiting for a human decision (AWAITING_OPERATOR, MANUAL_REVIEW), oldest first. */
export async function operatorQueue(db: Knex, organizationId: string, page: { skip: number; take: number }): Promise<{ total: number; items: QueueEntry[] }> {
  const query = db('collection_items as i')
    .where('i.organization_id', organizationId)
    .whereIn('i.status', OPERATOR_ITEM_STATUSES as string[]);
  const total = await countOf(query);
  const rows = await query
    .join('collection_collections as c', 'c.id', 'i.collection_id')
    .orderBy([
      { column: 'i.updated_at', order: 'asc' },
      { column: 'i.item_id', order: 'asc' },
    ])
    .offset(page.skip)
    .limit(page.take)
    .select('i.item_id', 'c.state');
  const items = rows.map((row) => {
    const collection = row.state as CollectionState;
    return { collection, item: collection.items.find((i) => i.itemId === row.item_id)! };
  });
  return { total, items };
}
