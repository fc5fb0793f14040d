import { ERASED, ERASED_SUBJECT, type PersonalDataRule } from '../../platform/personal-data/index.ts';

/** A user's name and e-mail address, sealed with a key of that user's own (no erasure route for users yet). */
export const identityPersonalData: PersonalDataRule = {
  subjectOf(data) {
    if (data.name === ERASED) return ERASED_SUBJECT;
    return typeof data.userId === 'string' ? `${String(data.organizationId)}:user:${data.userId}` : null;
  },
  fields: { UserCreated: ['name'], UserEmailChanged: ['email'] },
};
