import type { Principal } from '../../domain/identity/access.ts';
import { operationDecider, type OperationState } from '../../domain/operation/decider.ts';
import { operationStream } from '../../domain/operation/events.ts';
import { OperationMessages } from '../../domain/operation/messages.ts';
import type { PipelineContent } from '../../domain/operation/pipeline.ts';
import { DomainError } from '../../domain/shared/errors.ts';
import { findTemplateBySlug } from '../../projections/collection-template/queries.ts';
import { handleCommand, loadState, type Written } from '../command-handler.ts';
import type { AppContext } from '../context.ts';

type Caller = Pick<Principal, 'organizationId' | 'userId'>;
type App = Pick<AppContext, 'store' | 'ids' | 'clock' | 'db'>;

/** A COLLECTION step names a template the organization has (its own or a platform one, switched on or off). */
async function checkTemplates(app: App, organizationId: string, content: PipelineContent): Promise<void> {
  for (const step of content.steps) {
    if (step.kind === 'COLLECTION' && !(await findTemplateBySlug(app.db, organizationId, step.templateSlug))) {
      throw new DomainError('invalid', OperationMessages.collectionTemplateNotFound(step.templateSlug));
    }
  }
}

export async function createOperation(app: App, caller: Caller, content: PipelineContent): Promise<Written<OperationState>> {
  await checkTemplates(app, caller.organizationId, content);
  const operationId = app.ids.objectId();
  return handleCommand(app.store, operationStream(operationId), operationDecider, {
    type: 'CreateOperation',
    operationId,
    organizationId: caller.organizationId,
    userId: caller.userId,
    content,
    at: app.clock.now().toISOString(),
  });
}

/** An edit: a new immutable version (unchanged content makes none); running executions keep the steps they started with. */
export async function createOperationVersion(app: App, caller: Caller, operationId: string, content: PipelineContent): Promise<Written<OperationState>> {
  await checkTemplates(app, caller.organizationId, content);
  return handleCommand(app.store, operationStream(operationId), operationDecider, {
    type: 'CreateOperationVersion',
    operationId,
    organizationId: caller.organizationId,
    userId: caller.userId,
    content,
    at: app.clock.now().toISOString(),
  });
}

/** The latest version, read from the event store so a pipeline saved a moment ago runs at once. */
export async function operationForRun(app: Pick<AppContext, 'store'>, organizationId: string, operationId: string): Promise<{ version: number; content: PipelineContent }> {
  const { state } = await loadState<never, OperationState>(app.store, operationStream(operationId), operationDecider);
  const content = state.versions[state.versions.length - 1];
  if (!content || state.organizationId !== organizationId) throw new DomainError('not_found', OperationMessages.operationNotFound);
  return { version: state.versions.length, content };
}
