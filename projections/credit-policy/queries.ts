import type { Knex } from 'knex';
import type { PolicyContent } from '../../domain/credit-policy/policy.ts';

export interface PolicyView {
  id: string;
  organizationId: string;
  version: number;
  status: 'ACTIVE' | 'ARCHIVED';
  content: PolicyContent;
  createdBy: string;
  /** When the policy was first created; versionCreatedAt is when this version was. */
  createdAt: string;
  versionCreatedAt: string;
  updatedAt: string;
  archivedAt: string | null;
}

const iso = (value: unknown) => (value instanceof Date ? value.toISOString() : (value as string | null));

function viewOf(row: Record<string, unknown>): PolicyView {
  return {
    id: row.id as string,
    organizationId: row.organization_id as string,
    version: row.v as number,
    status: row.status as PolicyView['status'],
    content: row.content as PolicyContent,
    createdBy: row.created_by as string,
    createdAt: iso(row.created_at)!,
    versionCreatedAt: iso(row.version_created_at)!,
    updatedAt: iso(row.updated_at)!,
    archivedAt: iso(row.archived_at),
  };
}

function base(db: Knex, organizationId: string) {
  return db('credit_policy_policies as p')
    .join('credit_policy_versions as v', 'v.policy_id', 'p.id')
    .where('p.organization_id', organizationId)
    .select('p.id', 'p.organization_id', 'p.status', 'p.created_at', 'p.updated_at', 'p.archived_at', 'v.version as v', 'v.content', 'v.created_by', 'v.created_at as version_created_at');
}

/** The organization's policies at their latest version, by name. */
export async function listPolicies(db: Knex, organizationId: string, filter: { documentType?: string; includeArchived?: boolean } = {}): Promise<PolicyView[]> {
  const query = base(db, organizationId).whereRaw('v.version = p.version').orderBy('p.name').orderBy('p.id');
  if (filter.documentType) query.andWhere('p.document_type', filter.documentType);
  if (!filter.includeArchived) query.andWhere('p.status', 'ACTIVE');
  return (await query).map(viewOf);
}

/** One version of a policy (the latest when `version` is absent). */
export async function findPolicy(db: Knex, organizationId: string, policyId: string, version?: number): Promise<PolicyView | null> {
  const query = base(db, organizationId).andWhere('p.id', policyId);
  if (version === undefined) query.whereRaw('v.version = p.version');
  else query.andWhere('v.version', version);
  const row = await query.first();
  return row ? viewOf(row) : null;
}

export async function listPolicyVersions(db: Knex, organizationId: string, policyId: string): Promise<PolicyView[]> {
  return (await base(db, organizationId).andWhere('p.id', policyId).orderBy('v.version')).map(viewOf);
}
