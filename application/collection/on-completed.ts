import type Logger from 'bunyan';
import type { CollectionEventData } from '../../domain/collection/events.ts';
import type { Module } from '../../domain/identity/access.ts';
import { DomainError } from '../../domain/shared/errors.ts';
import type { AppContext } from '../context.ts';
import { requestReport } from '../report/commands.ts';
import { loadCollection } from './commands.ts';

/**
 * What a completed collection sets off, as its template said (resolved for the subject's entity
 * type at creation). POLICY: a report under that policy for the registry's CPF/CNPJ, requested
 * for the collection's creator with the collection id as the report's externalId, which is also
 * how a replay after a crash finds it already requested. OPERATION is not run yet (see
 * docs/collections.md): a pipeline runs on a proposal, which a collection does not have.
 */
export async function runOnCompleted(app: AppContext, completed: CollectionEventData, log: Logger): Promise<void> {
  const state = await loadCollection(app, completed.collectionId);
  const target = state.onCompleted;
  if (target.kind === 'NONE' || !target.id) return;
  if (target.kind === 'OPERATION') {
    log.warn({ collectionId: completed.collectionId, operationId: target.id }, 'onCompleted OPERATION is not supported yet; nothing was run');
    return;
  }
  const organizationId = completed.organizationId;
  const already = await app.db('report_reports').where({ organization_id: organizationId, external_id: completed.collectionId }).first('id');
  if (already) return;
  const organization = await app.db('identity_organizations').where({ id: organizationId }).first('modules');
  const caller = {
    organizationId,
    userId: state.createdBy?.actorId ?? 'SYSTEM',
    userName: '',
    modules: new Set<Module>((organization?.modules ?? []) as Module[]),
  };
  const { document, entityType } = state.subject;
  try {
    await requestReport(app, caller, { document, type: entityType === 'COMPANY' ? 'cnpj' : 'cpf', policyId: target.id, externalId: completed.collectionId });
  } catch (error) {
    // The policy was archived or removed since the template named it: nothing to retry.
    if (!(error instanceof DomainError)) throw error;
    log.warn({ collectionId: completed.collectionId, policyId: target.id, refusal: error.message }, 'onCompleted report refused');
  }
}
