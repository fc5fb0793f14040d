import type { Knex } from 'knex';
import { organizationIndexesStream, REFERENCE_INDEXES_STREAM, type MarketIndexPublished, type MarketIndexSet } from '../../domain/pricing/market-index-decider.ts';
import type { MarketIndexKey } from '../../domain/pricing/terms.ts';
import { pricingProjection } from '../../projections/pricing/projection.ts';
import { marketIndexesFor } from '../../projections/pricing/queries.ts';
import { databaseSuite, type TestDatabase } from '../support/db.ts';
import { projectionSpec } from '../support/projection.ts';

const test = databaseSuite("pricing read model: the reference indexes and each organization's own (given events, when events, then the query)");
let database: TestDatabase;
test.before.each((ctx) => void (database = ctx.db));
const spec = projectionSpec(pricingProjection, () => database.knex);

const AT = '2026-11-20T12:00:00.000Z';
const published = (index: MarketIndexKey, percentYear: string): MarketIndexPublished & { streamName: string } => ({
  type: 'MarketIndexPublished',
  data: { index, percentYear, date: '2026-11-19', source: 'BCB_SGS', at: AT },
  streamName: REFERENCE_INDEXES_STREAM,
});
const set = (organizationId: string, index: MarketIndexKey, percentYear: string): MarketIndexSet & { streamName: string } => ({
  type: 'MarketIndexSet',
  data: { organizationId, index, percentYear, date: '2026-11-19', userId: 'u'.repeat(24), at: AT },
  streamName: organizationIndexesStream(organizationId),
});
/** What an organization prices with, index by index: where each value comes from and the rate. */
const pricedBy = (organizationId: string) => async (db: Knex) => (await marketIndexesFor(db, organizationId)).map((i) => [i.key, i.source, i.percentYear]);

const A = 'a'.repeat(24);
const B = 'b'.repeat(24);

test('a publication from Banco Central replaces the default for everyone; the others keep their defaults', async () => {
  await spec.when(published('CDI', '14.65')).thenRead(pricedBy(A), [
    ['CDI', 'BCB_SGS', '14.65'],
    ['SELIC', 'DEFAULT', '15.00'],
    ['IPCA', 'DEFAULT', '4.68'],
  ]);
});

test("an organization's own value wins over the reference, for that organization only", async () => {
  const then = spec.given(published('SELIC', '14.75')).when(set(A, 'SELIC', '13.00'));
  await then.thenRead(pricedBy(A), [
    ['CDI', 'BCB_SGS', '14.65'],
    ['SELIC', 'ORGANIZATION', '13.00'],
    ['IPCA', 'DEFAULT', '4.68'],
  ]);
  await then.thenRead(pricedBy(B), [
    ['CDI', 'BCB_SGS', '14.65'],
    ['SELIC', 'BCB_SGS', '14.75'],
    ['IPCA', 'DEFAULT', '4.68'],
  ]);
});

test('the same events applied again (a rebuild, a retried batch) leave the rows as they were', async () => {
  await spec
    .given(published('CDI', '14.65'), set(A, 'SELIC', '13.00'))
    .when(published('CDI', '14.65'), set(A, 'SELIC', '13.00'))
    .thenRows('pricing_organization_indexes', { organization_id: A }, [{ index_key: 'SELIC', percent_year: '13.00' }], { columns: ['index_key', 'percent_year'] });
});

test.run();
