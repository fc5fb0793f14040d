import type { Knex } from 'knex';

/** The organization's name as the recipient page shows it ("who is asking"); null when unknown. */
export async function organizationName(db: Knex, organizationId: string): Promise<string | null> {
  const row = await db('identity_organizations').where({ id: organizationId }).first('name');
  return row?.name ?? null;
}
