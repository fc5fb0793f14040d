import type { Knex } from 'knex';

/**
 * Delivery bodies are kept once per event in `webhook_delivery_bodies`, not once per delivery: an
 * event goes to every subscription that wants it, and the row each attempt rewrites stays narrow.
 * A named body is kept without its id (each delivery's own id is spliced in when it is read, byte
 * for byte the body the outbox made: `fillNamedBody`); a legacy body, which has no id, whole, one
 * per legacy type. Rows written before the table existed, and pings, carry their body themselves.
 */
export interface KeptBody {
  /** 'named', or the legacy type. */
  kind: string;
  body: string;
}

/** The body of delivery row `d`, from its own column or from `b`, its joined kept body (BODY_JOIN). */
export const DELIVERY_BODY = `coalesce(d.body, case when d.family = 'named' then '{"id":' || to_json(d.id)::text || ',' || substr(b.body, 2) else b.body end)`;

/** Which kept body `b` belongs to delivery row `d`. */
export const BODY_OF_DELIVERY = `b.event_id = d.event_id and b.kind = case when d.family = 'named' then 'named' else d.event_name end`;

export const BODY_JOIN = `left join webhook_delivery_bodies b on ${BODY_OF_DELIVERY}`;

/** The kept bodies of these deliveries, each once: a statement's input for webhook_delivery_bodies. */
export function keptBodies(deliveries: ReadonlyArray<{ event_id: string; kept: KeptBody }>): string {
  const unique = new Map<string, { event_id: string; kind: string; body: string }>();
  for (const { event_id, kept } of deliveries) unique.set(`${kept.kind}\u0000${event_id}`, { event_id, kind: kept.kind, body: kept.body });
  return JSON.stringify([...unique.values()]);
}

/**
 * An insert of kept bodies from `keptBodies`' JSON, as a CTE or a statement; one already kept
 * stays. As a CTE, it inserts only where the statement's `condition` holds.
 */
export const insertKeptBodies = (condition = 'true') => `insert into webhook_delivery_bodies (event_id, kind, body)
  select k.event_id, k.kind, k.body from jsonb_to_recordset(?::jsonb) as k(event_id text, kind text, body text) where ${condition}
  on conflict (event_id, kind) do nothing`;

/** What a kept body (or a delivery's own) reads once its event's person was erased: valid JSON, nothing personal. */
const ERASED_BODY = '{"erased":true}';

/**
 * LGPD erasure: the bodies of every delivery of the events sealed for `subjectId` (their
 * metadata's personalDataSubjects; PostgreSQL adapter) were built from the person's data in
 * clear and kept for redelivery: they are replaced by ERASED_BODY (a named one keeps its id).
 * A delivery still pending is then sent with it. The events are found by a scan of the log: an
 * erasure is rare, and an index on the subjects would cost every append.
 */
export async function eraseDeliveryBodiesOfSubject(db: Knex, subjectId: string): Promise<number> {
  const events = `select event_id::text as event_id from events where metadata->'personalDataSubjects' @> jsonb_build_array(?::text)`;
  const kept = await db.raw(`update webhook_delivery_bodies set body = ? where event_id in (${events}) and body <> ?`, [ERASED_BODY, subjectId, ERASED_BODY]);
  const own = await db.raw(
    `update webhook_deliveries set body = case when family = 'named' then json_build_object('id', id, 'erased', true)::text else ? end
     where body is not null and event_id in (${events})`,
    [ERASED_BODY, subjectId],
  );
  return (kept.rowCount ?? 0) + (own.rowCount ?? 0);
}

/** The bodies of these deliveries as they are sent. */
export async function deliveryBodies(db: Knex, ids: string[]): Promise<Map<string, string>> {
  const result = await db.raw(`select d.id, ${DELIVERY_BODY} as body from webhook_deliveries d ${BODY_JOIN} where d.id = any(?)`, [ids]);
  return new Map((result.rows as Array<{ id: string; body: string }>).map((row) => [row.id, row.body]));
}
