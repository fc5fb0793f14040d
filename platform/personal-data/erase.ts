import type { EventStore, Position } from '../eventstore/port.ts';
import type { SubjectKeys } from './subject-keys.ts';

export const PERSONAL_DATA_ERASED = 'PersonalDataErased';
export const personalDataStream = (subject: string) => `personaldata-${subject}`;

export interface PersonalDataErased {
  subjectId: string;
  organizationId: string;
  /** The user who asked, or null from the command line. */
  erasedBy: string | null;
  erasedAt: string;
  keysErased: number;
}

/**
 * Delete the subject's keys, then record it. The key goes first: should the append fail, the
 * data is unreadable already and a retry only adds the record projections act on.
 */
export async function eraseSubject(store: EventStore, keys: SubjectKeys, erasure: Omit<PersonalDataErased, 'keysErased'>): Promise<{ event: PersonalDataErased; position: Position }> {
  const keysErased = await keys.erase(erasure.subjectId, new Date(erasure.erasedAt));
  const event: PersonalDataErased = { ...erasure, keysErased };
  const { position } = await store.appendToStream(personalDataStream(erasure.subjectId), [{ type: PERSONAL_DATA_ERASED, data: { ...event } }], { expectedRevision: 'any' });
  return { event, position };
}
