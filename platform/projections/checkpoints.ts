import type { Knex } from 'knex';
import type { Position } from '../eventstore/port.ts';

export interface StoredCheckpoint {
  position: Position;
  updatedAt: Date;
}

interface Row {
  name: string;
  commit_position: string;
  prepare_position: string;
  updated_at: Date;
}

const toPosition = (row: Row): Position => ({ commit: BigInt(row.commit_position), prepare: BigInt(row.prepare_position) });

export async function readCheckpoints(db: Knex, names: readonly string[]): Promise<Map<string, StoredCheckpoint>> {
  const rows: Row[] = await db('projection_checkpoints').whereIn('name', names as string[]);
  return new Map(rows.map((row) => [row.name, { position: toPosition(row), updatedAt: row.updated_at }]));
}

/**
 * Lock the projection's checkpoint row for the transaction, creating it at the start. Every
 * writer of a projection's tables (batch, rebuild switch, parked retry) takes it first, so they
 * never interleave.
 */
export async function lockCheckpoint(trx: Knex.Transaction, name: string): Promise<Position> {
  const locked = () => trx('projection_checkpoints').where({ name }).forUpdate().first() as Promise<Row | undefined>;
  // The row exists for every batch but a projection's first: one statement, not an insert each time.
  let row = await locked();
  if (!row) {
    await trx('projection_checkpoints').insert({ name }).onConflict('name').ignore();
    row = (await locked())!;
  }
  return toPosition(row);
}

export async function saveCheckpoint(trx: Knex.Transaction, name: string, position: Position): Promise<void> {
  await trx('projection_checkpoints').where({ name }).update({ commit_position: position.commit.toString(), prepare_position: position.prepare.toString(), updated_at: trx.fn.now() });
}
