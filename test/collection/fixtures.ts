import { collectionDecider } from '../../domain/collection/decider.ts';
import type { CollectionCommand, FileOpinion } from '../../domain/collection/commands.ts';
import type { CollectionDefinition, ItemDefinition, RecipientDefinition } from '../../domain/collection/definition.ts';
import type { CollectionModuleEvent } from '../../domain/collection/payloads.ts';
import { fold } from '../../domain/shared/decider.ts';

/** Collection decider fixtures: one definition, commands built from it, histories built by deciding. */
export const ORG = '0123456789abcdef01234567';
export const OTHER_ORG = 'aaaaaaaaaaaaaaaaaaaaaaaa';
export const CID = 'c00000000000000000000001';
export const AT = '2026-11-23T12:00:00.000Z';
export const USER = { actorType: 'USER', actorId: 'u00000000000000000000001' } as const;
export const SYSTEM = { actorType: 'SYSTEM', actorId: null } as const;
export const RECIPIENT = (recipientId: string) => ({ actorType: 'RECIPIENT', actorId: recipientId }) as const;

export const item = (itemId: string, extra: Partial<ItemDefinition> = {}): ItemDefinition => ({
  itemId,
  key: `key-${itemId}`,
  kind: 'DOCUMENT',
  title: `Documento ${itemId}`,
  expectedType: 'CONTRATO_SOCIAL',
  required: true,
  instructions: null,
  reuse: null,
  ...extra,
});

export const recipient = (recipientId: string, itemIds: string[]): RecipientDefinition => ({
  recipientId,
  name: `Pessoa ${recipientId}`,
  email: `${recipientId}@example.com`,
  phone: null,
  itemIds,
  linkHash: `hash-${recipientId}-1`,
});

export function definition(extra: Partial<CollectionDefinition> = {}): CollectionDefinition {
  return {
    registryId: 'r00000000000000000000001',
    subject: { name: 'Empresa Exemplo', document: '11222333000181', entityType: 'COMPANY' },
    template: null,
    mode: 'AUTOMATIC',
    channel: 'EMAIL',
    expiryDays: 10,
    reminderDays: [3],
    onCompleted: { kind: 'NONE', id: null },
    message: 'Por favor, envie os documentos.',
    items: [item('i1'), item('i2')],
    recipients: [recipient('p1', ['i1']), recipient('p2', ['i2'])],
    ...extra,
  };
}

type Without<C> = C extends unknown ? Omit<C, 'organizationId' | 'actor' | 'at'> : never;
/** A command of the test organization by the operator at AT unless told otherwise. */
export const cmd = (command: Without<CollectionCommand>, extra: Partial<Pick<CollectionCommand, 'organizationId' | 'actor' | 'at'>> = {}) =>
  ({ organizationId: ORG, actor: USER, at: AT, ...command, ...extra }) as CollectionCommand;

export const create = (send = true, def = definition()) => cmd({ type: 'CreateCollection', collectionId: CID, definition: def, send });

export const opinion = (registryDocumentId: string, verdict: FileOpinion['verdict'], attempt = 1): FileOpinion => ({
  registryDocumentId,
  attempt,
  type: 'CONTRATO_SOCIAL',
  verdict,
  score: verdict === 'VALIDO' ? 0.95 : 0.3,
  reason: verdict === 'VALIDO' ? null : 'Documento vencido.',
});

/** The events of deciding each command in turn. */
export function history(...commands: CollectionCommand[]): CollectionModuleEvent[] {
  return commands.reduce<CollectionModuleEvent[]>((events, command) => [...events, ...collectionDecider.decide(command, fold(collectionDecider, events))], []);
}

export const stateOf = (events: readonly CollectionModuleEvent[]) => fold(collectionDecider, events);
export const submit = (itemId: string, recipientId: string, doc: string) => cmd({ type: 'SubmitItemDocument', itemId, recipientId, registryDocumentId: doc }, { actor: RECIPIENT(recipientId) });
export const assess = (itemId: string, doc: string, verdict: FileOpinion['verdict'], attempt = 1, deployment: 'sandbox' | 'production' = 'sandbox', patch: Partial<FileOpinion> = {}) =>
  cmd({ type: 'AssessItem', itemId, opinion: { ...opinion(doc, verdict, attempt), ...patch }, deployment }, { actor: SYSTEM });
