import type { CollectionEventType } from '../../domain/collection/events.ts';
import type { TemplateContent } from '../../domain/collection-template/content.ts';
import type { TestApp } from '../support/app.ts';

/**
 * A collection event as the collection module writes it (the trail-entry envelope), appended
 * straight to the store: the template metrics read only these, whoever wrote them.
 */
export async function appendCollectionEvent(
  app: TestApp,
  type: Extract<CollectionEventType, 'CollectionCreated' | 'CollectionCompleted'>,
  entry: { organizationId: string; collectionId: string; occurredAt: string; payload?: Record<string, unknown> },
): Promise<void> {
  const action = type === 'CollectionCreated' ? 'COLLECTION_CREATED' : 'COLLECTION_COMPLETED';
  const data = { itemId: null, recipientId: null, action, actorType: 'SYSTEM', actorId: null, payload: {}, ...entry };
  await app.app.store.appendToStream(`collection-${entry.collectionId}`, [{ type, data }], { expectedRevision: 'any' });
}

/** A valid own template: two documents for companies, one for persons. */
export const sampleContent = (overrides: Partial<TemplateContent> = {}): TemplateContent => ({
  name: 'Crédito rural',
  description: 'Documentos para crédito rural.',
  items: [
    { key: 'car', kind: 'DOCUMENT', title: 'Cadastro ambiental rural', expectedType: null, required: true, instructions: 'Recibo do CAR.' },
    { key: 'contrato', kind: 'DOCUMENT', title: 'Contrato social', expectedType: 'CONTRATO_SOCIAL', appliesTo: 'PJ', required: true, instructions: null },
    {
      key: 'aceite',
      kind: 'CONSENT',
      title: 'Aceite dos termos',
      expectedType: null,
      required: false,
      instructions: null,
      config: { consent: { type: 'lgpd', version: 1, text: 'Autorizo.', hash: 'a'.repeat(64) } },
    },
  ],
  resolutionMode: 'REVIEW',
  notificationChannel: 'EMAIL',
  expiryDays: 10,
  reminderDays: [3, 7],
  onCompleted: { kind: 'NONE', id: null },
  publicForm: false,
  ...overrides,
});
