import { withCommitteeDefaults } from '../../domain/credit-policy/policy.ts';
import type { PolicyView } from '../../projections/credit-policy/queries.ts';

export function presentPolicy(view: PolicyView) {
  return {
    id: view.id,
    organizationId: view.organizationId,
    version: view.version,
    status: view.status,
    ...withCommitteeDefaults(view.content),
    createdBy: view.createdBy,
    createdAt: view.createdAt,
    versionCreatedAt: view.versionCreatedAt,
    updatedAt: view.updatedAt,
    archivedAt: view.archivedAt,
  };
}
