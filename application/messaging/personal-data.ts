import { ERASED_SUBJECT, type PersonalDataRule } from '../../platform/personal-data/index.ts';

/** Whose key seals an offer's message: the proposal's contact, one key per proposal. */
export const offerContactSubject = (organizationId: string, proposalId: string) => `${organizationId}:proposal-contact:${proposalId}`;

/**
 * A message's addressee (name, e-mail, phone) is the recipient's personal data, sealed with a key
 * of that recipient's own; the queued content is too (it names the person the documents are
 * about and carries the recipient's link, which opens their page). A platform user's notice is
 * sealed with that user's key, the one their name and address are sealed with; an offer's, with a
 * key of the proposal's contact (offerContactSubject).
 */
export const messagingPersonalData: PersonalDataRule = {
  subjectOf(data) {
    const to = data.to as { name?: unknown } | undefined;
    // An erased addressee reads as {}: outcomes recorded after the erasure are written erased.
    if (to && typeof to === 'object' && to.name === undefined) return ERASED_SUBJECT;
    const correlation = data.correlation as { recipientId?: unknown; userId?: unknown; proposalId?: unknown } | undefined;
    if (typeof correlation?.recipientId === 'string') return `${String(data.organizationId)}:collection-recipient:${correlation.recipientId}`;
    if (typeof correlation?.proposalId === 'string') return offerContactSubject(String(data.organizationId), correlation.proposalId);
    return typeof correlation?.userId === 'string' ? `${String(data.organizationId)}:user:${correlation.userId}` : null;
  },
  fields: {
    MessageQueued: ['to', 'content'],
    MessageSent: ['to'],
    MessageDelivered: ['to'],
    MessageRead: ['to'],
    MessageChannelFailed: ['to'],
    MessageFailed: ['to'],
    MessageNotSent: ['to'],
    MessageWithdrawn: ['to'],
  },
};
