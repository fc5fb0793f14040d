import { documentSubject, ERASED, ERASED_SUBJECT, type PersonalDataRule } from '../../platform/personal-data/index.ts';

/**
 * Personal data in registry events, sealed with the key of the person or company the registry is
 * (docs/personal-data.md): the CPF/CNPJ, names, contacts, basic data (address, birth date) and
 * file names (people name files after themselves), an operator's decision comment. Ids, types, statuses and opinions stay clear.
 */
export const registryPersonalData: PersonalDataRule = {
  subjectOf(data) {
    const { document, organizationId } = data;
    if (document === ERASED) return ERASED_SUBJECT;
    if (typeof document !== 'string') return null;
    return documentSubject(String(organizationId), document.length === 11 ? 'cpf' : 'cnpj', document);
  },
  fields: {
    RegistryCreated: ['document', 'name', 'contacts', 'basicData'],
    RegistryUpdated: ['document', 'name', 'contacts', 'basicData'],
    RegistryKycChanged: ['document'],
    RegistryDocumentReceived: ['document', 'fileName'],
    RegistryDocumentAssessed: ['document'],
    RegistryDocumentFailed: ['document'],
    // An operator's free text about a person's document may name or describe them.
    RegistryDocumentDecided: ['document', 'comment'],
  },
};
