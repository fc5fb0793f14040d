import knexFactory, { type Knex } from 'knex';
import pg from 'pg';

// int8 (bigint) columns as strings would leak into JSON replies as text; counters and positions
// in this service fit in JS numbers except event positions, which the adapters read as BigInt.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));

export type Db = Knex;

export function createKnex(url: string, poolMax = 20): Knex {
  return knexFactory({
    client: 'pg',
    connection: { connectionString: url },
    pool: { min: 0, max: poolMax },
    acquireConnectionTimeout: 20_000,
  });
}
