import type { Keyring } from '../../config/index.ts';
import { ERASED_SUBJECT, erasedValue, kindOf, subjectId } from './rules.ts';
import { decipher, parse, seal } from './store.ts';
import type { SubjectKeys } from './subject-keys.ts';

/**
 * Personal data kept outside events (a spool of messages, say), sealed the way events are: with
 * the key of the subject `naturalKey` names, so that erasing the subject makes those rows
 * unreadable with every event. The field's name is the associated data, as in events.
 * ERASED_SUBJECT (or no subject at all: nobody could erase it) writes the fields erased.
 */
export async function sealFields(keys: SubjectKeys, pepper: Keyring, naturalKey: string | typeof ERASED_SUBJECT | null, values: Record<string, unknown>, now: Date): Promise<Record<string, unknown>> {
  const subject = typeof naturalKey === 'string' ? subjectId(pepper, naturalKey) : null;
  const key = subject ? (await keys.forSubjects([subject], now)).get(subject)! : null;
  const sealed: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(values)) {
    sealed[field] = value === null || value === undefined ? value : key ? seal(key, field, value) : erasedValue(kindOf(value));
  }
  return sealed;
}

/** The fields `sealFields` wrote, opened; those whose key was erased read erased (`***` for text). */
export async function openFields(keys: SubjectKeys, values: Record<string, unknown>): Promise<Record<string, unknown>> {
  const parsed = Object.entries(values).map(([field, value]) => [field, value, parse(value)] as const);
  const live = await keys.byIds([...new Set(parsed.flatMap(([, , sealed]) => (sealed ? [sealed.keyId] : [])))]);
  return Object.fromEntries(
    parsed.map(([field, value, sealed]) => {
      if (!sealed) return [field, value];
      const key = live.get(sealed.keyId);
      return [field, key ? JSON.parse(decipher(key, field, sealed)) : erasedValue(sealed.kind)];
    }),
  );
}
