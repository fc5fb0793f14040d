/**
 * The public words of webhooks: legacy types, named events and their groups. Names here are a
 * public contract (spec, Versioning 5): add, never rename or remove.
 */

export const LEGACY_TYPES = ['REPORT', 'REPORT_FINISHED', 'REPORT_STATUS', 'CREDIT_POLICY', 'REPORT_EXPORTED', 'COMMITTEE_FINISHED', 'OPERATION', 'OPTIN'] as const;
export type LegacyType = (typeof LEGACY_TYPES)[number];

export function isLegacyType(value: unknown): value is LegacyType {
  return typeof value === 'string' && (LEGACY_TYPES as readonly string[]).includes(value);
}

/**
 * Each legacy type is an alias of one public name. `onlyNewReports`: the spec sends these types
 * only for reports created after the subscription was registered.
 */
export const LEGACY_TYPE_INFO: Record<LegacyType, { publicName: string; label: string; onlyNewReports: boolean }> = {
  REPORT: { publicName: 'report.section.updated', label: 'Seção do relatório atualizada', onlyNewReports: true },
  REPORT_FINISHED: { publicName: 'report.finished', label: 'Relatório finalizado', onlyNewReports: true },
  REPORT_STATUS: { publicName: 'report.status.changed', label: 'Status do relatório alterado', onlyNewReports: false },
  CREDIT_POLICY: { publicName: 'credit-policy.evaluated', label: 'Política de crédito avaliada', onlyNewReports: false },
  REPORT_EXPORTED: { publicName: 'report.exported', label: 'Relatório exportado', onlyNewReports: false },
  COMMITTEE_FINISHED: { publicName: 'committee.finished', label: 'Comitê finalizado', onlyNewReports: true },
  OPERATION: { publicName: 'operation.updated', label: 'Operação finalizada', onlyNewReports: false },
  OPTIN: { publicName: 'optin.updated', label: 'Opt-in atualizado', onlyNewReports: false },
};

const legacyByPublicName = new Map(Object.entries(LEGACY_TYPE_INFO).map(([type, info]) => [info.publicName, type as LegacyType]));

export function legacyTypeOf(publicName: string): LegacyType | undefined {
  return legacyByPublicName.get(publicName);
}

/** The test button: in no group, sent whatever the subscription's event list says. */
export const PING_EVENT = 'ping';

/**
 * GET /v1/webhook/events groups. The spec's catalog has seven groups; the route answers with five
 * titles, so: report and credit events (the legacy types' public names) come first, Document ->
 * Documento, Registry -> Cadastro, Collection + Items + Form and signature -> Solicitação,
 * Messages -> Mensagens, and Test (ping) is in none.
 */
export const EVENT_GROUPS: ReadonlyArray<{ title: string; events: readonly string[] }> = [
  { title: 'Relatórios e crédito', events: LEGACY_TYPES.map((type) => LEGACY_TYPE_INFO[type].publicName) },
  {
    title: 'Documento',
    events: ['registry.document.received', 'registry.document.progress', 'registry.document.assessed', 'registry.document.failed', 'registry.document.reprocessed', 'registry.document.decided'],
  },
  { title: 'Cadastro', events: ['registry.updated', 'registry.financial.extracted'] },
  {
    title: 'Solicitação',
    events: [
      'collection.created',
      'collection.sent',
      'collection.canceled',
      'collection.completed',
      'collection.expired',
      'collection.item.submitted',
      'collection.item.assessed',
      'collection.item.rejected',
      'collection.item.reviewed',
      'collection.item.waived',
      'collection.form.submitted',
      'collection.consent.accepted',
      'collection.consent.revoked',
      'collection.identity.completed',
      'collection.signature.collected',
      'collection.signature.completed',
      'collection.signature.document',
    ],
  },
  {
    title: 'Mensagens',
    events: ['collection.message.sent', 'collection.message.reminded', 'collection.recipient.opened', 'collection.message.failed'],
  },
];

/** Every name a named subscription may list (ping is implied, never listed). */
export const SUBSCRIBABLE_EVENTS: readonly string[] = EVENT_GROUPS.flatMap((group) => group.events);
const subscribable = new Set(SUBSCRIBABLE_EVENTS);

export function isSubscribableEvent(name: string): boolean {
  return subscribable.has(name);
}

export function eventCatalog() {
  return {
    groups: EVENT_GROUPS.map((group) => ({ title: group.title, events: [...group.events] })),
    events: [...SUBSCRIBABLE_EVENTS],
    eventLabels: Object.fromEntries(LEGACY_TYPES.map((type) => [LEGACY_TYPE_INFO[type].publicName, LEGACY_TYPE_INFO[type].label])),
  };
}
