import type { PersonalDataRule } from '../../../platform/personal-data/index.ts';

/**
 * The addresses (client, connection, forwarded chain) and user agent a consent was accepted from are the recipient's personal data:
 * sealed with that recipient's key (as their name and contacts are), so erasing the recipient
 * erases them while the trail keeps who (by id), when and which term.
 */
export const consentPersonalData: PersonalDataRule = {
  subjectOf(data) {
    return typeof data.recipientId === 'string' ? `${String(data.organizationId)}:collection-recipient:${data.recipientId}` : null;
  },
  fields: { ConsentAccepted: ['ip', 'socketAddress', 'forwardedFor', 'userAgent'] },
};
