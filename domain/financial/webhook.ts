import type { StoredEventRoute } from '../webhook/routing.ts';

const FIELDS = ['registryId', 'registryDocumentId', 'attempt', 'periodCount', 'latestPeriodAt', 'periods'] as const;

/**
 * registry.financial.extracted with exactly the contract's fields. An extraction none of whose
 * files could be registered (each over the registry's 16 MB) names no registry document: it is
 * not sent (the BALANCE_SHEET section still shows it).
 */
export const FINANCIAL_WEBHOOK_ROUTES: Readonly<Record<string, StoredEventRoute>> = {
  FinancialStatementsExtracted: {
    publicName: (d) => (d.registryDocumentId ? 'registry.financial.extracted' : null),
    data: (d) => Object.fromEntries(FIELDS.map((field) => [field, d[field] ?? null])),
  },
};
