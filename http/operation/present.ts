import type { ExecutionView, OperationView } from '../../projections/operation/queries.ts';

export const presentOperation = (view: OperationView) => ({
  id: view.id,
  version: view.version,
  ...view.content,
  createdBy: view.createdBy,
  versionCreatedAt: view.versionCreatedAt,
});

export const presentExecution = ({ organizationId: _org, ...view }: ExecutionView) => view;
