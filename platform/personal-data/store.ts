import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { EventStore, EventToAppend, RecordedEvent } from '../eventstore/port.ts';
import type { Keyring } from '../../config/index.ts';
import { ERASED_SUBJECT, erasedValue, kindOf, subjectId, type PersonalDataRule } from './rules.ts';
import type { SubjectKey, SubjectKeys } from './subject-keys.ts';

/** A sealed field: `pd1.<key id>.<kind>.<iv>.<tag>.<data>` (kind tells what an erased field reads as). */
const PREFIX = 'pd1';

/** Event metadata naming the subjects whose keys sealed the event, for projections to find them again. */
export const SUBJECTS_METADATA = 'personalDataSubjects';

export interface PersonalDataOptions {
  keys: SubjectKeys;
  pepper: Keyring;
  rules: readonly PersonalDataRule[];
  /** Rewrite the data of events stored in an older shape, by type, on every read. */
  upcasters?: Readonly<Record<string, (data: Record<string, unknown>) => Record<string, unknown>>>;
}

export function seal(key: SubjectKey, field: string, value: unknown): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key.key, iv);
  cipher.setAAD(Buffer.from(`${key.keyId}.${field}`));
  const data = Buffer.concat([cipher.update(JSON.stringify(value), 'utf8'), cipher.final()]);
  return [PREFIX, key.keyId, kindOf(value), iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), data.toString('base64url')].join('.');
}

/** The parts of a sealed field, or null for any other value (a plain one, never sealed). */
export function parse(value: unknown) {
  if (typeof value !== 'string' || !value.startsWith(`${PREFIX}.`)) return null;
  const [, keyId, kind, iv, tag, data] = value.split('.');
  return keyId && kind && iv && tag && data !== undefined ? { keyId, kind, iv, tag, data } : null;
}

/** The sealed field's plain JSON. */
export function decipher(key: Buffer, field: string, sealed: NonNullable<ReturnType<typeof parse>>): string {
  const aes = createDecipheriv('aes-256-gcm', key, Buffer.from(sealed.iv, 'base64url'));
  aes.setAAD(Buffer.from(`${sealed.keyId}.${field}`));
  aes.setAuthTag(Buffer.from(sealed.tag, 'base64url'));
  return Buffer.concat([aes.update(Buffer.from(sealed.data, 'base64url')), aes.final()]).toString('utf8');
}

/**
 * Crypto-shredding as a decorator of the event store port, so deciders stay pure, every adapter
 * (EventStoreDB included) stores only ciphertext, and every reader (command handlers, projections,
 * the webhook outbox, rebuilds) sees plain values. Appends seal the declared fields with the
 * subject's key; reads open them, and a field whose key was erased reads as erased, forever.
 */
export type RulesByType = ReadonlyMap<string, Array<{ rule: PersonalDataRule; fields: readonly string[] }>>;

export function rulesByTypeOf(rules: readonly PersonalDataRule[]): RulesByType {
  const byType = new Map<string, Array<{ rule: PersonalDataRule; fields: readonly string[] }>>();
  for (const rule of rules) {
    for (const [type, fields] of Object.entries(rule.fields)) byType.set(type, [...(byType.get(type) ?? []), { rule, fields }]);
  }
  return byType;
}

/** Events as every reader sees them: upcast, and their sealed fields opened (or erased). */
export async function openEvents(options: PersonalDataOptions, rulesByType: RulesByType, events: RecordedEvent[]): Promise<RecordedEvent[]> {
  const upcast = events.map((e) => {
    const upcaster = options.upcasters?.[e.type];
    return upcaster ? { ...e, data: upcaster(e.data) } : e;
  });
  const keyIds = new Set<string>();
  for (const event of upcast) {
    for (const { fields } of rulesByType.get(event.type) ?? [])
      for (const field of fields) {
        const sealed = parse(event.data[field]);
        if (sealed) keyIds.add(sealed.keyId);
      }
  }
  if (keyIds.size === 0) return upcast;
  const keys = await options.keys.byIds([...keyIds]);
  return upcast.map((event) => {
    const rules = rulesByType.get(event.type);
    if (!rules) return event;
    const data = { ...event.data };
    for (const { fields } of rules)
      for (const field of fields) {
        const text = data[field];
        const sealed = parse(text);
        if (!sealed) continue;
        const key = keys.get(sealed.keyId);
        // Parsed anew for each reader: a value shared between them could be changed by one.
        data[field] = key ? JSON.parse(options.keys.plainOf(field, text as string, () => decipher(key, field, sealed))) : erasedValue(sealed.kind);
      }
    return { ...event, data };
  });
}

export function withPersonalData(store: EventStore, options: PersonalDataOptions): EventStore {
  const rulesByType = rulesByTypeOf(options.rules);

  async function sealAll(events: readonly EventToAppend[]): Promise<EventToAppend[]> {
    const plans = events.map((event) =>
      (rulesByType.get(event.type) ?? []).map(({ rule, fields }) => {
        const subject = rule.subjectOf(event.data);
        return { fields, subject: subject === null || subject === ERASED_SUBJECT ? subject : subjectId(options.pepper, subject) };
      }),
    );
    if (plans.every((p) => p.length === 0)) return [...events];
    const subjects = [...new Set(plans.flat().flatMap((p) => (typeof p.subject === 'string' ? [p.subject] : [])))];
    const keys = subjects.length ? await options.keys.forSubjects(subjects, new Date()) : new Map<string, SubjectKey>();
    return events.map((event, i) => {
      const plan = plans[i]!;
      if (plan.length === 0) return event;
      const data = { ...event.data };
      for (const { fields, subject } of plan) {
        if (subject === null) continue;
        for (const field of fields) {
          const value = data[field];
          if (value === null || value === undefined) continue;
          data[field] = typeof subject === 'string' ? seal(keys.get(subject)!, field, value) : erasedValue(kindOf(value));
        }
      }
      const sealedFor = plan.flatMap((p) => (typeof p.subject === 'string' ? [p.subject] : []));
      return { ...event, data, metadata: sealedFor.length ? { ...event.metadata, [SUBJECTS_METADATA]: sealedFor } : event.metadata };
    });
  }

  const openAll = (events: RecordedEvent[]) => openEvents(options, rulesByType, events);

  return {
    kind: store.kind,
    async appendToStream(streamName, events, appendOptions) {
      return store.appendToStream(streamName, await sealAll(events), appendOptions);
    },
    async readStream(streamName, readOptions) {
      return openAll(await store.readStream(streamName, readOptions));
    },
    async readAll(readOptions) {
      const result = await store.readAll(readOptions);
      return { ...result, events: await openAll(result.events) };
    },
    subscribeToAll(handler, subscribeOptions) {
      return store.subscribeToAll(async (events, checkpoint) => handler(await openAll(events), checkpoint), subscribeOptions);
    },
    positionBefore: (time) => store.positionBefore(time),
    headPosition: () => store.headPosition(),
    ping: () => store.ping(),
    async close() {
      await store.close();
      await options.keys.close();
    },
  };
}
