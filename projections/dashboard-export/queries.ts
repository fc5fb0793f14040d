import type { Knex } from 'knex';
import type { ExportRow } from '../../domain/dashboard-export/rows.ts';
import type { DashboardFilters } from '../../domain/dashboard/filters.ts';

/**
 * Columns in the row's order, with the fact each field is. proposal_facts keeps the spec's rules
 * already (projections/proposal/projection.ts): firm_cents is the last firm offer, chosen_cents
 * the last choice, decision the latest, analyzed/pre-approved/firm-offer the firsts (coalesce),
 * chosen_at the last. The requested amount is the product's fixed value when it has one, as the
 * dashboard's requestedCents indicator counts it.
 */
const COLUMNS = [
  'id',
  'created_at',
  'document',
  'name',
  'entity_type',
  'origin',
  'correspondent_id',
  'agent_id',
  'product_key',
  'product_name',
  'portfolio_name',
  'status',
  'firm_cents',
  'chosen_cents',
  'decision',
  'rejection_step',
  'analyzed_at',
  'pre_approved_at',
  'firm_offer_at',
  'chosen_at',
  'issued_at',
  'status_changed_at',
] as const;

const iso = (value: unknown) => (value instanceof Date ? value.toISOString() : ((value as string | null) ?? null));

function rowOf(r: Record<string, unknown>): ExportRow {
  return {
    id: r.id as string,
    createdAt: iso(r.created_at)!,
    document: r.document as string,
    name: r.name as string,
    entityType: r.entity_type as string,
    origin: r.origin as string,
    correspondentId: r.correspondent_id as string | null,
    agentId: r.agent_id as string | null,
    productKey: r.product_key as string,
    productName: r.product_name as string,
    portfolioName: r.portfolio_name as string | null,
    status: r.status as string,
    requestedCents: r.requested_cents as number | null,
    firmCents: r.firm_cents as number | null,
    chosenCents: r.chosen_cents as number | null,
    decision: r.decision as ExportRow['decision'],
    rejectionStep: r.rejection_step as string | null,
    analyzedAt: iso(r.analyzed_at),
    preApprovedAt: iso(r.pre_approved_at),
    firmOfferAt: iso(r.firm_offer_at),
    chosenAt: iso(r.chosen_at),
    issuedAt: iso(r.issued_at),
    statusChangedAt: iso(r.status_changed_at)!,
  };
}

/** The filters as a where clause over proposal_facts: the period by creation date, each list as a set. */
export function whereFilters(query: Knex.QueryBuilder, organizationId: string, filters: DashboardFilters): Knex.QueryBuilder {
  query.where('organization_id', organizationId).andWhere('created_at', '>=', filters.from).andWhere('created_at', '<', filters.to);
  const lists = {
    origin: 'origin',
    correspondentId: 'correspondent_id',
    agentId: 'agent_id',
    portfolioId: 'portfolio_id',
    productKey: 'product_key',
    entityType: 'entity_type',
    status: 'status',
  } as const;
  for (const [key, column] of Object.entries(lists)) {
    const values = filters[key as keyof typeof lists];
    if (values) query.whereIn(column, values);
  }
  return query;
}

/**
 * The newest `limit` proposals of the filters (creation time, then id, descending, over the
 * (organization_id, created_at) index), and whether more exist: one extra row is read to know.
 * `trx` carries the export's statement timeout.
 */
export async function exportRows(trx: Knex, organizationId: string, filters: DashboardFilters, limit: number): Promise<{ rows: ExportRow[]; truncated: boolean }> {
  const found = await whereFilters(trx('proposal_facts'), organizationId, filters)
    .select([...COLUMNS, trx.raw('coalesce(fixed_amount_cents, requested_cents) as requested_cents')])
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .limit(limit + 1);
  return { rows: found.slice(0, limit).map(rowOf), truncated: found.length > limit };
}
