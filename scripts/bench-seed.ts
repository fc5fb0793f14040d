/**
 * Events the benches write straight to the store, so that a log of a million events takes minutes
 * rather than the hours it would through HTTP: collections as the collection module writes them,
 * decided by its own decider (created and sent, a document rejected and sent again until the
 * trail is long enough, then approved and the collection completed). Every projection of
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

/**
 * One collection's history of at least `length` events, decided command by command (a document
 * rejected three events at a time until it is long enough). Decided once per length and stamped
 * with each collection's ids: the decider's fold is the same for every collection.
 */
function decidedHistory(length: number): CollectionModuleEvent[] {
  const base = { organizationId: TEMPLATE_ORGANIZATION, collectionId: TEMPLATE_COLLECTION };
  const at = (n: number) => new Date(START + n * 1000).toISOString();
  const recipient = { actorType: 'RECIPIENT', actorId: RECIPIENT } as const;
  const system = { actorType: 'SYSTEM', actorId: null } as const;
  const opinion = (attempt: number, valid: boolean) => ({
    registryDocumentId: `d${attempt.toString().padStart(23, '0')}`,
    attempt,
    type: 'CONTRATO_SOCIAL' as const,
    verdict: valid ? ('VALIDO' as const) : ('INVALIDO' as const),
    score: valid ? 0.95 : 0.3,
    reason: valid ? null : 'Documento vencido.',
  });
  const commands = function* (): Generator<CollectionCommand> {
    yield {
      ...base,
      type: 'CreateCollection',
      actor: { actorType: 'USER', actorId: 'u'.repeat(24) },
      at: at(0),
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
    };
    for (let attempt = 1; ; attempt++) {
      const last = attempt * 3 + 2 >= length;
      yield { ...base, type: 'SubmitItemDocument', actor: recipient, at: at(attempt * 2), itemId: ITEM, recipientId: RECIPIENT, registryDocumentId: opinion(attempt, last).registryDocumentId };
      yield { ...base, type: 'AssessItem', actor: system, at: at(attempt * 2 + 1), itemId: ITEM, opinion: opinion(attempt, last), deployment: 'production' };
      if (last) return;
    }
  };
  let state = collectionDecider.initialState();
  const events: CollectionModuleEvent[] = [];
  for (const command of commands()) {
    for (const event of collectionDecider.decide(command, state)) {
      state = collectionDecider.evolve(state, event);
      events.push(event);
    }
  }
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
  return history.slice(0, size).map((event) => {
    const data: Record<string, unknown> = { ...event.data, organizationId, collectionId };
    // A recipient's link hash is unique across collections (collection_links).
    if (event.type === 'CollectionCreated') {
      const { definition } = event.data;
      const linkHash = createHash('sha256').update(collectionId).digest('hex');
      data.definition = { ...definition, recipients: definition.recipients.map((r) => ({ ...r, linkHash })) };
    }
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
