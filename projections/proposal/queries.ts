import type { Knex } from 'knex';

export interface ProposalListFilter {
  page: number;
  pageSize: number;
  search?: string;
  status?: string[];
  productKey?: string;
  portfolioId?: string;
  origin?: string;
  createdFrom?: string;
  createdTo?: string;
}

export interface ProposalRow {
  id: string;
  createdAt: string;
  document: string;
  name: string;
  entityType: string;
  kind: string;
  origin: string;
  correspondentId: string | null;
  agentId: string | null;
  externalId: string | null;
  productKey: string;
  productName: string;
  portfolioId: string | null;
  portfolioName: string | null;
  status: string;
  statusChangedAt: string;
  requestedAmountCents: number | null;
  requestedTermMonths: number | null;
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const iso = (value: unknown) => (value instanceof Date ? value.toISOString() : (value as string));
const count = (value: unknown) => (value === null || value === undefined ? null : Number(value));

function rowOf(r: Record<string, unknown>): ProposalRow {
  return {
    id: r.id as string,
    createdAt: iso(r.created_at),
    document: r.document as string,
    name: r.name as string,
    entityType: r.entity_type as string,
    kind: r.kind as string,
    origin: r.origin as string,
    correspondentId: r.correspondent_id as string | null,
    agentId: r.agent_id as string | null,
    externalId: r.external_id as string | null,
    productKey: r.product_key as string,
    productName: r.product_name as string,
    portfolioId: r.portfolio_id as string | null,
    portfolioName: r.portfolio_name as string | null,
    status: r.status as string,
    statusChangedAt: iso(r.status_changed_at),
    requestedAmountCents: count(r.requested_cents),
    requestedTermMonths: count(r.requested_term_months),
  };
}

/**
 * `search` matches the document (digits, masked or not, as a prefix), the name (any part, any
 * case) or the externalId (exactly). Newest first.
 */
export async function listProposals(db: Knex, organizationId: string, filter: ProposalListFilter): Promise<{ total: number; items: ProposalRow[] }> {
  const query = db('proposal_facts').where('organization_id', organizationId);
  const search = filter.search?.trim();
  if (search) {
    const digits = search.replace(/[.\-/\s]/g, '');
    query.andWhere((q) => {
      q.whereILike('name', `%${search.replace(/[\\%_]/g, '\\$&')}%`).orWhere('external_id', search);
      if (/^\d+$/.test(digits)) q.orWhereLike('document', `${digits}%`);
    });
  }
  if (filter.status?.length) query.whereIn('status', filter.status);
  if (filter.productKey) query.andWhere('product_key', filter.productKey);
  if (filter.portfolioId) query.andWhere('portfolio_id', filter.portfolioId);
  if (filter.origin) query.andWhere('origin', filter.origin);
  if (filter.createdFrom) query.andWhere('created_at', '>=', filter.createdFrom);
  if (filter.createdTo) {
    // A day alone means the whole day (UTC): before the next one.
    if (DAY.test(filter.createdTo)) query.andWhere('created_at', '<', new Date(Date.parse(`${filter.createdTo}T00:00:00Z`) + 86_400_000).toISOString());
    else query.andWhere('created_at', '<=', filter.createdTo);
  }
  const [{ total }] = (await query.clone().count({ total: '*' })) as [{ total: string | number }];
  const rows = await query
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(filter.pageSize)
    .offset((filter.page - 1) * filter.pageSize);
  return { total: Number(total), items: rows.map(rowOf) };
}

/** The proposal and offer a current customer link opens (a replaced link is no longer here). */
export async function findOfferLink(db: Knex, linkHash: string): Promise<{ organizationId: string; proposalId: string; offerId: string } | null> {
  const row = await db('proposal_offer_links').where({ link_hash: linkHash }).first();
  return row ? { organizationId: row.organization_id, proposalId: row.proposal_id, offerId: row.offer_id } : null;
}

/** The proposals whose holder is this personal-data subject: what the holder's erasure reaches. */
export async function proposalIdsOfSubject(db: Knex, subjectId: string): Promise<string[]> {
  const rows: Array<{ id: string }> = await db('proposal_facts').where({ subject_id: subjectId }).select('id');
  return rows.map((row) => row.id);
}
