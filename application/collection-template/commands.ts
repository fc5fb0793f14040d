import type { Principal } from '../../domain/identity/access.ts';
import { completionTargets, type TemplateContent } from '../../domain/collection-template/content.ts';
import { collectionTemplateDecider, switchedVersions, templateOf, type CollectionTemplateState } from '../../domain/collection-template/decider.ts';
import { templateCatalogStream } from '../../domain/collection-template/events.ts';
import { TemplateMessages } from '../../domain/collection-template/messages.ts';
import type { CollectionTemplate } from '../../domain/collection-template/template.ts';
import { DomainError } from '../../domain/shared/errors.ts';
import { findPolicy } from '../../projections/credit-policy/queries.ts';
import { findOperation } from '../../projections/operation/queries.ts';
import { handleCommand, loadState, type Written } from '../command-handler.ts';
import type { AppContext } from '../context.ts';

type Caller = Pick<Principal, 'organizationId' | 'userId'>;
type App = Pick<AppContext, 'store' | 'ids' | 'clock' | 'db'>;

const POLICY_DOCUMENT_TYPE = { COMPANY: 'cnpj', PERSON: 'cpf' } as const;

/**
 * What a completion does must exist in the organization when the template is saved: an active
 * credit policy (of the matching document type when given per entity type) or a pipeline. Checked
 * against the read models, outside the decider, which knows no other aggregate.
 */
async function checkCompletionTargets(app: App, organizationId: string, content: TemplateContent): Promise<void> {
  for (const { entityType, target } of completionTargets(content.onCompleted)) {
    if (target.kind === 'POLICY') {
      const policy = await findPolicy(app.db, organizationId, target.id!);
      if (!policy || policy.status !== 'ACTIVE') throw new DomainError('invalid', TemplateMessages.completionPolicyNotFound);
      if (entityType && policy.content.documentType !== POLICY_DOCUMENT_TYPE[entityType]) {
        throw new DomainError('invalid', TemplateMessages.completionPolicyDocumentType);
      }
    }
    if (target.kind === 'OPERATION' && !(await findOperation(app.db, organizationId, target.id!))) {
      throw new DomainError('invalid', TemplateMessages.completionOperationNotFound);
    }
  }
}

export async function createTemplate(app: App, caller: Caller, slug: string, content: TemplateContent): Promise<Written<CollectionTemplateState>> {
  await checkCompletionTargets(app, caller.organizationId, content);
  return handleCommand(app.store, templateCatalogStream(caller.organizationId), collectionTemplateDecider, {
    type: 'CreateTemplate',
    organizationId: caller.organizationId,
    templateId: app.ids.objectId(),
    slug,
    content,
    userId: caller.userId,
    at: app.clock.now().toISOString(),
  });
}

/** An edit: a new immutable version with the whole content (unchanged content makes none). */
export async function reviseTemplate(app: App, caller: Caller, slug: string, content: TemplateContent): Promise<Written<CollectionTemplateState>> {
  await checkCompletionTargets(app, caller.organizationId, content);
  return handleCommand(app.store, templateCatalogStream(caller.organizationId), collectionTemplateDecider, {
    type: 'ReviseTemplate',
    organizationId: caller.organizationId,
    slug,
    content,
    userId: caller.userId,
    at: app.clock.now().toISOString(),
  });
}

/** On or off for every version; `updated` counts them (1 for a platform template). */
export async function switchTemplate(app: App, caller: Caller, slug: string, enabled: boolean): Promise<Written<CollectionTemplateState> & { updated: number }> {
  const { state, position } = await handleCommand(app.store, templateCatalogStream(caller.organizationId), collectionTemplateDecider, {
    type: 'SwitchTemplate',
    organizationId: caller.organizationId,
    slug,
    enabled,
    userId: caller.userId,
    at: app.clock.now().toISOString(),
  });
  return { state, position, updated: switchedVersions(state, slug) };
}

/** A template as the catalog stream tells it (for the reply to a write: never behind). */
export async function templateFromStream(app: Pick<AppContext, 'store'>, organizationId: string, slug: string): Promise<CollectionTemplate> {
  const { state } = await loadState(app.store, templateCatalogStream(organizationId), collectionTemplateDecider);
  const template = templateOf(state, slug);
  if (!template) throw new DomainError('not_found', TemplateMessages.templateNotFound);
  return template;
}
