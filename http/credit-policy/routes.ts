import Type from 'typebox';
import { archivePolicy, createPolicy, createPolicyVersion } from '../../application/credit-policy/commands.ts';
import type { AppContext } from '../../application/context.ts';
import { DomainError } from '../../domain/shared/errors.ts';
import { Messages } from '../../domain/shared/messages.ts';
import { CREDIT_POLICY_PROJECTION } from '../../projections/credit-policy/projection.ts';
import { findPolicy, listPolicies, listPolicyVersions, type PolicyView } from '../../projections/credit-policy/queries.ts';
import { toDomainEvents, type Written } from '../../application/command-handler.ts';
import { replyAfterWrite, type Caller } from '../../application/read-your-writes.ts';
import type { CreditPolicyState } from '../../domain/credit-policy/decider.ts';
import { policyStream, type CreditPolicyEvent } from '../../domain/credit-policy/events.ts';
import { Gates } from '../gates.ts';
import { route, type RouteTable } from '../route.ts';
import { contentOf, PolicyBody, PolicyListQuery, PolicyParams, PolicySchema, PolicyVersionParams } from './schemas.ts';
import { presentPolicy } from './present.ts';

/** The policy as its own stream tells it after a write, never the read model (application/read-your-writes.ts). */
const written = (app: AppContext, caller: Caller, result: Written<CreditPolicyState>): Promise<ReturnType<typeof presentPolicy>> =>
  replyAfterWrite(app, caller, result, async ({ state }) => presentPolicy(policyViewOf(toDomainEvents<CreditPolicyEvent>(await app.store.readStream(policyStream(state.policyId!))))));

const reads = [CREDIT_POLICY_PROJECTION];

/** Fold a policy's events into the view GET shows (the credit-policy projection, in memory). */
export function policyViewOf(events: readonly CreditPolicyEvent[]): PolicyView {
  let view: PolicyView | undefined;
  for (const event of events) {
    if (event.type === 'CreditPolicyArchived') {
      view = { ...view!, status: 'ARCHIVED', archivedAt: event.data.archivedAt, updatedAt: event.data.archivedAt };
      continue;
    }
    const { policyId, organizationId, version, content, userId, createdAt } = event.data;
    view = {
      id: policyId,
      organizationId,
      version,
      status: view?.status ?? 'ACTIVE',
      content,
      createdBy: userId,
      createdAt: view?.createdAt ?? createdAt,
      versionCreatedAt: createdAt,
      updatedAt: createdAt,
      archivedAt: view?.archivedAt ?? null,
    };
  }
  return view!;
}

export const creditPolicyRoutes: RouteTable = {
  module: 'credit-policy',
  description: 'Credit policies (score and rules), versioned: where a report gets its policyId',
  routes: [
    route({
      method: 'get',
      path: '/credit-policy/policy',
      summary: "The organization's credit policies (latest version of each)",
      description: 'Where POST /v2/report gets its policyId. Archived policies only with includeArchived=true.',
      gate: Gates.creditPolicyRead,
      query: PolicyListQuery,
      responses: { 200: Type.Array(PolicySchema) },
      reads,
      async handle({ app, principal, query }) {
        return (await listPolicies(app.db, principal.organizationId, query)).map(presentPolicy);
      },
    }),
    route({
      method: 'post',
      path: '/credit-policy/policy',
      summary: 'Create a credit policy (version 1)',
      gate: Gates.creditPolicyManage,
      body: PolicyBody,
      responses: { 200: PolicySchema },
      async handle({ app, principal, body }) {
        return written(app, principal, await createPolicy(app, principal, contentOf(body)));
      },
    }),
    route({
      method: 'get',
      path: '/credit-policy/policy/:id',
      summary: 'A credit policy at its latest version',
      gate: Gates.creditPolicyRead,
      params: PolicyParams,
      responses: { 200: PolicySchema },
      reads,
      async handle({ app, principal, params }) {
        const view = await findPolicy(app.db, principal.organizationId, params.id);
        if (!view) throw new DomainError('not_found', Messages.policyNotFound);
        return presentPolicy(view);
      },
    }),
    route({
      method: 'put',
      path: '/credit-policy/policy/:id',
      summary: 'Edit a credit policy: a new immutable version with the whole content',
      description: 'Reports keep the version they ran under. Unchanged content makes no version. The document type cannot change.',
      gate: Gates.creditPolicyManage,
      params: PolicyParams,
      body: PolicyBody,
      responses: { 200: PolicySchema },
      async handle({ app, principal, params, body }) {
        return written(app, principal, await createPolicyVersion(app, principal, params.id, contentOf(body)));
      },
    }),
    route({
      method: 'delete',
      path: '/credit-policy/policy/:id',
      summary: 'Archive a credit policy: no new reports under it; its reports and versions stay readable',
      gate: Gates.creditPolicyManage,
      params: PolicyParams,
      responses: { 200: PolicySchema },
      async handle({ app, principal, params }) {
        return written(app, principal, await archivePolicy(app, principal, params.id));
      },
    }),
    route({
      method: 'get',
      path: '/credit-policy/policy/:id/versions',
      summary: 'Every version of a credit policy, oldest first',
      gate: Gates.creditPolicyRead,
      params: PolicyParams,
      responses: { 200: Type.Array(PolicySchema) },
      reads,
      async handle({ app, principal, params }) {
        const versions = await listPolicyVersions(app.db, principal.organizationId, params.id);
        if (!versions.length) throw new DomainError('not_found', Messages.policyNotFound);
        return versions.map(presentPolicy);
      },
    }),
    route({
      method: 'get',
      path: '/credit-policy/policy/:id/versions/:version',
      summary: 'One version of a credit policy (the one a report names in policyVersion)',
      gate: Gates.creditPolicyRead,
      params: PolicyVersionParams,
      responses: { 200: PolicySchema },
      reads,
      async handle({ app, principal, params }) {
        const view = await findPolicy(app.db, principal.organizationId, params.id, params.version);
        if (view) return presentPolicy(view);
        const exists = await findPolicy(app.db, principal.organizationId, params.id);
        throw new DomainError('not_found', exists ? Messages.policyVersionNotFound : Messages.policyNotFound);
      },
    }),
  ],
};
