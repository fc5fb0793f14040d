import type Logger from 'bunyan';
import type { CollectionEventData } from '../../domain/collection/events.ts';
import type { Module } from '../../domain/identity/access.ts';
import { DomainError } from '../../domain/shared/errors.ts';
import type { AppContext } from '../context.ts';
import { listProducts } from '../../projections/catalog/queries.ts';
import { runProposal } from '../operation/run-commands.ts';
import { createProposal, loadProposal } from '../proposal/commands.ts';
import { requestReport } from '../report/commands.ts';
import type { CollectionState } from '../../domain/collection/state.ts';
import { loadCollection } from './commands.ts';

type Caller = Parameters<typeof requestReport>[1];

/**
 * What a completed collection sets off, as its template said (resolved for the subject's entity
 * type at creation). POLICY: a report under that policy for the registry's CPF/CNPJ, requested
 * for the collection's creator with the collection id as the report's externalId, which is also
 * how a replay after a crash finds it already requested. OPERATION: the pipeline runs on a
 * proposal opened for the collection (see runPipeline).
 */
export async function runOnCompleted(app: AppContext, completed: CollectionEventData, log: Logger): Promise<void> {
  const state = await loadCollection(app, completed.collectionId);
  const target = state.onCompleted;
  if (target.kind === 'NONE' || !target.id) return;
  const organizationId = completed.organizationId;
  const organization = await app.authenticator.organization(organizationId);
  const caller = {
    organizationId,
    userId: state.createdBy?.actorId ?? 'SYSTEM',
    userName: '',
    modules: new Set<Module>(organization?.modules ?? []),
  };
  if (target.kind === 'OPERATION') return runPipeline(app, caller, state, completed.collectionId, target.id, log);
  const already = await app.db('report_reports').where({ organization_id: organizationId, external_id: completed.collectionId }).first('id');
  if (already) return;
  const { document, entityType } = state.subject;
  try {
    await requestReport(app, caller, { document, type: entityType === 'COMPANY' ? 'cnpj' : 'cpf', policyId: target.id, externalId: completed.collectionId });
  } catch (error) {
    // The policy was archived or removed since the template named it: nothing to retry.
    if (!(error instanceof DomainError)) throw error;
    log.warn({ collectionId: completed.collectionId, policyId: target.id, refusal: error.message }, 'onCompleted report refused');
  }
}

/**
 * A pipeline runs on a proposal, so the completed collection opens one for its subject: origin
 * API, externalId the collection id, and the collection's own id as the proposal's id (another
 * stream category), so a replay after a crash finds it instead of opening a second. Its product
 * is the first enabled product (by key) serving the subject's entity type whose default pipeline
 * is this one; with none, nothing runs and the log says why. It asks for the product's fixed
 * value, else its maximum amount and term. A run already registered or linked
 * is not started again.
 */
async function runPipeline(app: AppContext, caller: Caller, state: CollectionState, collectionId: string, operationId: string, log: Logger): Promise<void> {
  const { document, entityType, name } = state.subject;
  let proposal = await loadProposal(app, collectionId);
  if (!proposal.created) {
    const products = await listProducts(app.db, caller.organizationId, { entityType, enabled: true });
    const product = products.find((p) => p.defaultOperationId === operationId);
    if (!product) {
      log.warn({ collectionId, operationId }, 'onCompleted OPERATION: no enabled product runs this pipeline by default; nothing was run');
      return;
    }
    // Nobody asked for an amount: the product's fixed value, else its whole range, within which
    // the pipeline's indicative offer lets the customer choose.
    const request = product.fixedAmountCents === null ? { requestedAmountCents: product.maxAmountCents ?? undefined, requestedTermMonths: product.maxTermMonths ?? undefined } : {};
    try {
      await createProposal(app, caller, { document, name, productKey: product.key, origin: 'API', externalId: collectionId, ...request }, { proposalId: collectionId });
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      log.warn({ collectionId, operationId, refusal: error.message }, 'onCompleted OPERATION: the proposal was refused; nothing was run');
      return;
    }
    proposal = await loadProposal(app, collectionId);
  }
  if (proposal.executions.length > 0) return;
  try {
    await runProposal(app, caller, collectionId, { kind: 'OPERATION', targetId: operationId });
  } catch (error) {
    // 409: this run is already registered (a replay); 422 and the like: the pipeline changed since.
    if (!(error instanceof DomainError)) throw error;
    log.warn({ collectionId, operationId, refusal: error.message }, 'onCompleted pipeline run refused');
  }
}
