import { documentSubject, ERASED, ERASED_SUBJECT, type PersonalDataRule } from '../../../platform/personal-data/index.ts';

/**
 * A FORM item's answers describe the collection's subject (revenue, address, dates), so they are
 * sealed with that person's or company's key, the one the registry and the collection's
 * definition use: erasing the subject erases the answers, and the inputs read model drops its copies.
 */
export const formPersonalData: PersonalDataRule = {
  subjectOf(data) {
    const { document, organizationId } = data;
    // Answers given after an erasure are written erased (the collection's subject then reads {}).
    if (document === ERASED || document === '' || document === undefined) return ERASED_SUBJECT;
    if (typeof document !== 'string') return null;
    return documentSubject(String(organizationId), document.length === 11 ? 'cpf' : 'cnpj', document);
  },
  fields: { FormSubmitted: ['answers', 'document'] },
};
