import type { Knex } from 'knex';
import { START, type Position, type RecordedEvent } from '../eventstore/port.ts';
import { PERSONAL_DATA_ERASED, personalDataStream } from './erase.ts';
import { ERASED_SUBJECT, erasedValue, kindOf, subjectId } from './rules.ts';
import { SUBJECTS_METADATA, openEvents, parse, rulesByTypeOf, seal, type PersonalDataOptions } from './store.ts';

/** Its row in projection_checkpoints: where a run stopped, so the next one resumes there. */
export const SEAL_LEGACY_CHECKPOINT = 'maintenance:personal-data-seal-legacy';

interface Row {
  transaction_id: string;
  global_position: string;
  event_type: string;
  data: Record<string, unknown> | null;
  metadata: Record<string, unknown> | null;
  created_at: Date;
}

export interface SealBatchResult {
  /** Events read in this batch, of any type. */
  scanned: number;
  /** Events rewritten. */
  sealed: number;
  /** Where the next batch starts; null once the log's end was reached. */
  next: Position | null;
}

/** A declared field still holding a plain value (null and absent fields have nothing to seal). */
function plainFields(fields: readonly string[], data: Record<string, unknown>): string[] {
  return fields.filter((field) => data[field] !== null && data[field] !== undefined && !parse(data[field]));
}

/**
 * Seal in place the personal fields that events appended before sealing existed still hold in
 * clear, in the form the decorator (store.ts) writes today, by the same rules: the subject's live
 * key (created if it has none), the key id and field name as associated data, the subject added
 * to the event's metadata. A subject erased after the event was written gets the field erased
 * instead (that erasure was meant to reach it; a key created later is for later records). Fields
 * already sealed are left alone, so a run is idempotent and any number of runs converge.
 *
 * One batch: `limit` events of the log after `after` (every type: a keyset walk of the position
 * index costs the same whatever the log holds), rewritten in one statement and one transaction
 * with the saved position. PostgreSQL only: the events table is rewritten where it stands.
 */
export async function sealLegacyBatch(db: Knex, options: PersonalDataOptions, after: Position, limit: number, now: Date): Promise<SealBatchResult> {
  const rulesByType = rulesByTypeOf(options.rules);
  const types = [...rulesByType.keys()];
  const { rows } = (await db.raw(
    `select transaction_id::text as transaction_id, global_position::text as global_position, event_type, created_at,
            case when event_type = any(?::text[]) then data end as data,
            case when event_type = any(?::text[]) then metadata end as metadata
       from events
      where (transaction_id, global_position) > (?::bigint, ?::bigint)
      order by transaction_id, global_position
      limit ?`,
    [types, types, after.commit.toString(), after.prepare.toString(), limit],
  )) as { rows: Row[] };
  const last = rows.at(-1);
  const next = last ? { commit: BigInt(last.transaction_id), prepare: BigInt(last.global_position) } : null;
  const legacy = rows.filter((row) => row.data && (rulesByType.get(row.event_type) ?? []).some(({ fields }) => plainFields(fields, row.data!).length));
  if (!legacy.length) return { scanned: rows.length, sealed: 0, next };

  // The subjects come from the data as readers see it: fields sealed since (a rule that gained a
  // field later leaves an event half sealed) are opened first.
  const opened = await openEvents(
    { ...options, upcasters: undefined },
    rulesByType,
    legacy.map((row): RecordedEvent => ({ id: '', streamName: '', type: row.event_type, data: row.data!, metadata: {}, revision: 0n, position: START, createdAt: row.created_at })),
  );
  const plans = legacy.map((row, i) =>
    (rulesByType.get(row.event_type) ?? []).map(({ rule, fields }) => {
      const natural = rule.subjectOf(opened[i]!.data);
      const subject = natural === null || natural === ERASED_SUBJECT ? natural : subjectId(options.pepper, natural);
      return { fields: plainFields(fields, row.data!), subject };
    }),
  );
  const subjects = [...new Set(plans.flat().flatMap((p) => (typeof p.subject === 'string' ? [p.subject] : [])))];
  const erasedAt = subjects.length ? await lastErasures(db, subjects) : new Map<string, Date>();
  const erasedSince = (subject: string, row: Row) => (erasedAt.get(subject)?.getTime() ?? -Infinity) >= new Date(row.created_at).getTime();
  const keyed = subjects.filter((subject) => legacy.some((row, i) => plans[i]!.some((p) => p.subject === subject) && !erasedSince(subject, row)));
  const keys = keyed.length ? await options.keys.forSubjects(keyed, now) : new Map();

  const updates = legacy.map((row, i) => {
    const data = { ...row.data! };
    const sealedFor = new Set<string>(((row.metadata ?? {})[SUBJECTS_METADATA] as string[] | undefined) ?? []);
    for (const { fields, subject } of plans[i]!) {
      if (subject === null) continue;
      // ERASED_SUBJECT: built from erased data, written erased as the decorator would.
      const key = typeof subject === 'string' && !erasedSince(subject, row) ? keys.get(subject) : undefined;
      for (const field of fields) data[field] = key ? seal(key, field, data[field]) : erasedValue(kindOf(data[field]));
      if (key) sealedFor.add(subject as string);
    }
    const metadata = sealedFor.size ? { ...row.metadata, [SUBJECTS_METADATA]: [...sealedFor] } : (row.metadata ?? {});
    return { row, data, metadata };
  });
  await db.transaction(async (trx) => {
    await trx.raw(
      `update events e set data = v.data, metadata = v.metadata
         from unnest(?::bigint[], ?::bigint[], ?::jsonb[], ?::jsonb[]) as v(transaction_id, global_position, data, metadata)
        where e.transaction_id = v.transaction_id and e.global_position = v.global_position`,
      [updates.map((u) => u.row.transaction_id), updates.map((u) => u.row.global_position), updates.map((u) => JSON.stringify(u.data)), updates.map((u) => JSON.stringify(u.metadata))],
    );
    await saveProgress(trx, next!);
  });
  return { scanned: rows.length, sealed: updates.length, next };
}

/**
 * When each subject was last erased: by its keys, or by its PersonalDataErased record (an erasure
 * of a subject that had only legacy events erased no key, but was meant to reach them).
 */
async function lastErasures(db: Knex, subjects: readonly string[]): Promise<Map<string, Date>> {
  const { rows } = (await db.raw(
    `select subject_id, max(at) as at from (
       select subject_id, erased_at as at from subject_keys where subject_id = any(?::text[]) and erased_at is not null
       union all
       select substr(stream_name, length(?) + 1), (data->>'erasedAt')::timestamptz from events
        where stream_name = any(?::text[]) and event_type = ?
     ) erasures group by subject_id`,
    [[...subjects], personalDataStream(''), subjects.map(personalDataStream), PERSONAL_DATA_ERASED],
  )) as { rows: Array<{ subject_id: string; at: Date }> };
  return new Map(rows.map((r) => [r.subject_id, new Date(r.at)]));
}

export async function readProgress(db: Knex): Promise<Position> {
  const row = await db('projection_checkpoints').where({ name: SEAL_LEGACY_CHECKPOINT }).first();
  return row ? { commit: BigInt(row.commit_position), prepare: BigInt(row.prepare_position) } : START;
}

export async function saveProgress(db: Knex, position: Position): Promise<void> {
  await db('projection_checkpoints')
    .insert({ name: SEAL_LEGACY_CHECKPOINT, commit_position: position.commit.toString(), prepare_position: position.prepare.toString() })
    .onConflict('name')
    .merge(['commit_position', 'prepare_position', 'updated_at']);
}

/** Runs batches from the saved position (or the start) to the end of the log. */
export async function sealLegacyEvents(
  db: Knex,
  options: PersonalDataOptions,
  settings: { batchSize: number; fromStart: boolean; now: () => Date; onBatch?: (result: SealBatchResult) => void },
): Promise<{ scanned: number; sealed: number }> {
  let at = settings.fromStart ? START : await readProgress(db);
  const total = { scanned: 0, sealed: 0 };
  for (;;) {
    const result = await sealLegacyBatch(db, options, at, settings.batchSize, settings.now());
    total.scanned += result.scanned;
    total.sealed += result.sealed;
    settings.onBatch?.(result);
    if (!result.next) return total;
    // A batch with nothing to rewrite saved no position: save it here, so a resumed run skips it.
    if (!result.sealed) await saveProgress(db, result.next);
    at = result.next;
  }
}
