import type { CollectionDefinition, RecipientDefinition } from '../../domain/collection/definition.ts';
import { documentSubject, ERASED_SUBJECT, type PersonalDataRule } from '../../platform/personal-data/index.ts';

/** The natural key of a collection recipient's own personal data (recipients have no CPF in a collection). */
export const recipientSubject = (organizationId: string, recipientId: string) => `${organizationId}:collection-recipient:${recipientId}`;

/**
 * Personal data of collection events. The trail envelope carries none (ids, statuses, reasons);
 * the fields beside it do: CollectionCreated's `definition` (the subject's name and CPF/CNPJ, the
 * recipients' names, e-mails and phones) is sealed with the subject's key, so erasing that person
 * or company erases it; a recipient added later is sealed with a key of that recipient's own, the
 * one the messaging module seals their addressee with.
 */
export const collectionPersonalData: PersonalDataRule = {
  subjectOf(data) {
    const organizationId = String(data.organizationId);
    if ('definition' in data) {
      const subject = (data.definition as Partial<CollectionDefinition>).subject;
      if (!subject) return ERASED_SUBJECT;
      return documentSubject(organizationId, subject.entityType === 'COMPANY' ? 'cnpj' : 'cpf', subject.document);
    }
    if ('recipient' in data) {
      const recipient = data.recipient as Partial<RecipientDefinition>;
      return recipient.recipientId ? recipientSubject(organizationId, recipient.recipientId) : ERASED_SUBJECT;
    }
    return null;
  },
  fields: { CollectionCreated: ['definition'], RecipientAdded: ['recipient'] },
};
