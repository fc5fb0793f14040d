/**
 * Events the benches write straight to the store, so that a log of a million events takes minutes
 * rather than the hours it would through HTTP: collections as the collection module writes them,
 * decided by its own decider (created and sent, documents rejected and the link reissued until
 * the trail is long enough, then a document approved and the collection completed). Every projection of
 * collection events takes them as it takes the service's own; the trail projection turns each
 * into one row (hash-chained per collection, then sealed).
 *
 * They are appended unsealed: the benches' store has no personal-data keys. Readers open sealed
 * and unsealed fields alike (platform/personal-data/store.ts), so only the key look-up is missing.
 */
import { createHash } from 'node:crypto';
import { collectionDecider } from '../domain/collection/decider.ts';
import type { CollectionCommand } from '../domain/collection/commands.ts';
import type { CollectionModuleEvent } from '../domain/collection/payloads.ts';
import { collectionStream } from '../domain/collection/events.ts';
import { comparePositions, type EventStore, type EventToAppend, type Position } from '../platform/eventstore/port.ts';

const TEMPLATE_ORGANIZATION = '0'.repeat(24);
const TEMPLATE_COLLECTION = 'c'.repeat(24);
const RECIPIENT = 'b'.repeat(24);
const ITEM = 'a'.repeat(24);
const START = Date.UTC(2026, 10, 23);

/** A command without the fields every command of the history shares (distributed over the union). */
type Undated<C> = C extends unknown ? Omit<C, 'organizationId' | 'at'> : never;

/**
 * One collection's history of `length` events (5 when fewer are asked), decided command by
 * command: created and sent, documents rejected (three events each) for the first 1,000 events, then the
 * recipient's link reissued until the trail is long enough (the state keeps every document, so
 * past that a rejection a time would make a 100,000-entry trail quadratic to decide), then a
 * document approved and the collection completed. Decided once per length and stamped with each
 * collection's ids: the fold is the same for every collection.
 */
function decidedHistory(length: number): CollectionModuleEvent[] {
  const base = { organizationId: TEMPLATE_ORGANIZATION, collectionId: TEMPLATE_COLLECTION };
  const events: CollectionModuleEvent[] = [];
  let state = collectionDecider.initialState();
  const decide = (command: Undated<CollectionCommand>) => {
    for (const event of collectionDecider.decide({ ...base, at: new Date(START + events.length * 1000).toISOString(), ...command } as CollectionCommand, state)) {
      state = collectionDecider.evolve(state, event);
      events.push(event);
    }
  };
  const recipient = { actorType: 'RECIPIENT', actorId: RECIPIENT } as const;
  const system = { actorType: 'SYSTEM', actorId: null } as const;
  const operator = { actorType: 'USER', actorId: 'u'.repeat(24) } as const;
  const document = (attempt: number, valid: boolean) => {
    const registryDocumentId = `d${attempt.toString().padStart(23, '0')}`;
    decide({ type: 'SubmitItemDocument', actor: recipient, itemId: ITEM, recipientId: RECIPIENT, registryDocumentId });
    const opinion = {
      registryDocumentId,
      attempt,
      type: 'CONTRATO_SOCIAL' as const,
      verdict: valid ? ('VALIDO' as const) : ('INVALIDO' as const),
      score: valid ? 0.95 : 0.3,
      reason: valid ? null : 'Documento vencido.',
    };
    decide({ type: 'AssessItem', actor: system, itemId: ITEM, opinion, deployment: 'production' });
  };
  decide({
    type: 'CreateCollection',
    actor: operator,
    collectionId: TEMPLATE_COLLECTION,
    send: true,
    definition: {
      registryId: 'r'.repeat(24),
      subject: { name: 'Empresa Exemplo', document: '11222333000181', entityType: 'COMPANY' },
      template: null,
      mode: 'AUTOMATIC',
      channel: 'EMAIL',
      expiryDays: 30,
      reminderDays: [3],
      onCompleted: { kind: 'NONE', id: null },
      message: null,
      items: [{ itemId: ITEM, key: 'contrato-social', kind: 'DOCUMENT', title: 'Contrato social', expectedType: 'CONTRATO_SOCIAL', required: true, instructions: null, reuse: null }],
      recipients: [{ recipientId: RECIPIENT, name: 'Pessoa Exemplo', email: 'pessoa@example.com', phone: null, itemIds: [ITEM], linkHash: 'f'.repeat(64) }],
    },
  });
  // The last three: the approved document's submission, assessment and the completion.
  let attempt = 0;
  while (events.length + 3 < length) {
    if (events.length + 6 <= Math.min(length, 1000)) document(++attempt, false);
    else decide({ type: 'ReissueLink', actor: operator, recipientId: RECIPIENT, linkHash: 'f'.repeat(64) });
  }
  document(attempt + 1, true);
  return events;
}

const histories = new Map<number, CollectionModuleEvent[]>();

/**
 * The first `size` events of a collection's history (a collection cut short is one still in
 * progress), for `collectionId` of `organizationId`.
 */
export function collectionEvents(organizationId: string, collectionId: string, size: number, length = size): EventToAppend[] {
  let history = histories.get(length);
  if (!history) histories.set(length, (history = decidedHistory(length)));
  // A recipient's link hash is unique across collections (collection_links), each version's its own.
  const linkHash = (version: number) => createHash('sha256').update(`${collectionId}:${version}`).digest('hex');
  return history.slice(0, size).map((event) => {
    const data: Record<string, unknown> = { ...event.data, organizationId, collectionId };
    if (event.type === 'CollectionCreated') {
      const { definition } = event.data;
      data.definition = { ...definition, recipients: definition.recipients.map((r) => ({ ...r, linkHash: linkHash(1) })) };
    }
    if (event.type === 'RecipientLinkReissued') data.linkHash = linkHash(event.data.payload.linkVersion);
    return { type: event.type, data };
  });
}

/** A 24-hex collection id from a number. */
export const collectionIdOf = (n: number) => n.toString(16).padStart(24, 'c');

/**
 * `events` collection events in collections of `perCollection`, the collections spread over the
 * given organizations in turn, appended in batches of up to 1,000 by 4 writers. Returns the last position.
 */
export async function seedTrails(store: EventStore, organizations: readonly string[], events: number, perCollection: number, progress?: (done: number) => void): Promise<Position | undefined> {
  const collections = Math.ceil(events / perCollection);
  let next = 0;
  let done = 0;
  let last: Position | undefined;
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (next < collections) {
        const c = next++;
        const size = Math.min(perCollection, events - c * perCollection);
        const history = collectionEvents(organizations[c % organizations.length]!, collectionIdOf(c), size, perCollection);
        for (let offset = 0; offset < size; offset += 1000) {
          const batch = history.slice(offset, offset + 1000);
          const { position } = await store.appendToStream(collectionStream(collectionIdOf(c)), batch, { expectedRevision: 'any' });
          if (!last || comparePositions(position, last) > 0) last = position;
          done += batch.length;
          if (done % 100_000 < batch.length) progress?.(done);
        }
      }
    }),
  );
  return last;
}
