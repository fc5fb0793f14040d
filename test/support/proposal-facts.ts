import type { Knex } from 'knex';

/**
 * `count` rows of proposal_facts for one organization in one SQL statement, as the proposal
 * projection would have left them: one per minute back from `newest`, statuses, origins and
 * entity types cycling. For the export's ceiling and timing, where thousands of proposals
 * through the event store would only make the test slow.
 */
export async function seedProposalFacts(db: Knex, organizationId: string, count: number, newest: string): Promise<void> {
  await db.raw(
    `insert into proposal_facts (id, organization_id, created_at, created_by, document, name, entity_type, kind, origin,
       correspondent_id, product_id, product_key, product_name, status, status_changed_at, requested_cents, requested_term_months)
     select lpad(to_hex(n), 8, '0') || substr(md5(?), 1, 16), ?, ?::timestamptz - make_interval(mins => n), 'seed',
       lpad(n::text, 11, '0'), 'Pessoa ' || n, case when n % 2 = 0 then 'PERSON' else 'COMPANY' end, 'FINANCING',
       (array['PUBLIC_FORM','OPERATOR','API','BATCH','CRM','CHANNEL'])[1 + n % 6], 'corr-' || (n % 7), 'c0seed', 'credito-pessoal',
       'Crédito pessoal', (array['DRAFT','IN_ANALYSIS','WAITING_OPERATOR','REJECTED','ISSUED'])[1 + n % 5],
       ?::timestamptz - make_interval(mins => n), 100000 + n, 12
     from generate_series(1, ?) as n`,
    [organizationId, organizationId, newest, newest, count],
  );
}
