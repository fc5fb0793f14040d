import { documentSubject, ERASED, ERASED_SUBJECT, type PersonalDataRule } from '../../platform/personal-data/index.ts';

/**
 * The person an event's `document` (digits) names, as the report module keys them: a CPF or a
 * CNPJ by its length, so one erasure of a person erases their reports, proposals, participations
 * and executions in that organization alike.
 */
export function documentSubjectOf(data: Record<string, unknown>): string | typeof ERASED_SUBJECT | null {
  const { document, organizationId } = data;
  if (document === ERASED) return ERASED_SUBJECT;
  if (typeof document !== 'string') return null;
  return documentSubject(String(organizationId), document.length === 14 ? 'cnpj' : 'cpf', document);
}

/**
 * Personal data in proposal events (docs/personal-data.md): the holder's document, name and
 * contact on creation, and each participant's (a guarantor, a spouse: their own subject) on the
 * participant events. Offers, statuses and choices name nobody.
 */
export const proposalPersonalData: PersonalDataRule = {
  subjectOf: documentSubjectOf,
  fields: {
    ProposalCreated: ['document', 'name', 'contact'],
    ParticipantAdded: ['document', 'name', 'contact'],
    ParticipantChanged: ['document', 'name', 'contact'],
  },
};
