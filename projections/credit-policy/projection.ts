import type { Knex } from 'knex';
import type { RecordedEvent } from '../../platform/eventstore/port.ts';
import { CreditPolicyEventTypes, type CreditPolicyEvent } from '../../domain/credit-policy/events.ts';
import type { Projection } from '../../platform/projections/projection.ts';

export const CREDIT_POLICY_PROJECTION = 'credit-policy';

async function apply(event: CreditPolicyEvent, trx: Knex.Transaction): Promise<void> {
  switch (event.type) {
    case 'CreditPolicyCreated':
    case 'CreditPolicyVersioned': {
      const { policyId, organizationId, version, content, userId, createdAt } = event.data;
      await trx('credit_policy_versions')
        .insert({ policy_id: policyId, version, organization_id: organizationId, content: JSON.stringify(content), created_by: userId, created_at: createdAt })
        .onConflict(['policy_id', 'version'])
        .ignore();
      const latest = { name: content.name, document_type: content.documentType, version, updated_at: createdAt };
      if (event.type === 'CreditPolicyCreated') {
        await trx('credit_policy_policies')
          .insert({ id: policyId, organization_id: organizationId, status: 'ACTIVE', created_at: createdAt, archived_at: null, ...latest })
          .onConflict('id')
          .merge();
      } else {
        await trx('credit_policy_policies').where({ id: policyId }).update(latest);
      }
      return;
    }
    case 'CreditPolicyArchived':
      await trx('credit_policy_policies').where({ id: event.data.policyId }).update({ status: 'ARCHIVED', archived_at: event.data.archivedAt, updated_at: event.data.archivedAt });
  }
}

/** Policies (latest version) and every version's content. */
export const creditPolicyProjection: Projection = {
  name: CREDIT_POLICY_PROJECTION,
  eventTypes: Object.values(CreditPolicyEventTypes),
  tables: ['credit_policy_policies', 'credit_policy_versions'],
  async handle(events: readonly RecordedEvent[], trx: Knex.Transaction) {
    for (const event of events) await apply({ type: event.type, data: event.data } as unknown as CreditPolicyEvent, trx);
  },
};
