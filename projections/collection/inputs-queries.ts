import type { Knex } from 'knex';

/**
 * What collections told the service about a registry, as policy input keys (form.<template>.<field>,
 * kyc.consentimento_<type>) with their latest values; the credit policy's inputs read it.
 */
export async function collectionInputValues(db: Knex, organizationId: string, registryId: string): Promise<Record<string, unknown>> {
  const rows: Array<{ key: string; value: unknown }> = await db('collection_inputs').where({ organization_id: organizationId, registry_id: registryId }).orderBy('key').select('key', 'value');
  return Object.fromEntries(rows.map((row) => [row.key, row.value]));
}
