import { documentSubject, ERASED, ERASED_SUBJECT, type PersonalDataRule } from '../../platform/personal-data/index.ts';

/**
 * Personal data in report events, sealed with the key of the person the report is about (see
 * docs/personal-data.md for the inventory). A new personal field is one more name here.
 */
export const reportPersonalData: PersonalDataRule = {
  subjectOf(data) {
    const { document, type, organizationId } = data;
    if (document === ERASED) return ERASED_SUBJECT;
    return typeof document === 'string' ? documentSubject(String(organizationId), String(type), document) : null;
  },
  fields: {
    ReportRequested: ['document', 'inputs'],
    ReportProcessingStarted: ['document'],
    ReportSectionUpdated: ['document', 'details'],
    ReportSourcesFinished: ['document'],
    CreditPolicyEvaluated: ['document'],
    ReportDecided: ['document', 'commentary', 'analystName'],
    ReportExported: ['document'],
    ReportExportFailed: ['document'],
    FinancialStatementsSubmitted: ['document'],
    FinancialStatementsExtractionAttempted: ['document'],
    FinancialStatementsExtracted: ['document'],
    FinancialStatementsExtractionFailed: ['document'],
  },
};
