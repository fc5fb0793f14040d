import type { PersonalDataRule } from '../../../platform/personal-data/index.ts';
import { recipientSubject } from '../personal-data.ts';

/**
 * The images of an identity check are the person who took them: the recipient. Their blob ids
 * (beside IDENTITY_CHECK_STARTED) are sealed with the recipient's key, so the event names that
 * person in its metadata: the identity projection keeps it on the check's row, and the
 * recipient's own erasure finds (and deletes) their checks, also in a rebuild.
 */
export const identityCheckPersonalData: PersonalDataRule = {
  subjectOf(data) {
    return typeof data.recipientId === 'string' ? recipientSubject(String(data.organizationId), data.recipientId) : null;
  },
  fields: { IdentityCheckStarted: ['imageBlobIds'] },
};
