import type { PersonalDataRule } from '../../../platform/personal-data/index.ts';

/**
 * A party's signature evidence (address and user agent beside the trail envelope) is that
 * recipient's personal data: sealed with the recipient's key, so erasing the recipient erases it
 * while the signature itself (who, when, the document's hash) stays in the trail.
 */
export const signaturePersonalData: PersonalDataRule = {
  subjectOf(data) {
    if (!('evidence' in data) || typeof data.recipientId !== 'string') return null;
    return `${String(data.organizationId)}:collection-recipient:${data.recipientId}`;
  },
  fields: { SignatureCollected: ['evidence'] },
};
