import type { Decider, DomainEvent } from '../../domain/shared/decider.ts';
import { handleCommand, type HandleResult } from '../command-handler.ts';
import { ConcurrencyError, type EventStore } from '../../platform/eventstore/port.ts';

/**
 * Decide on a state the caller already holds (just read, or known empty for a fresh id) and
 * append with its revision, saving the read handleCommand would repeat. If another writer got in
 * between, fall back to handleCommand, which reads again and decides again.
 */
export async function decideOnKnownState<Command, Event extends DomainEvent, State>(
  store: EventStore,
  streamName: string,
  decider: Decider<Command, Event, State>,
  known: { state: State; revision: bigint },
  command: Command,
): Promise<HandleResult<Event, State>> {
  const events = decider.decide(command, known.state);
  if (events.length === 0) return { events, state: known.state, position: null, revision: known.revision };
  try {
    const result = await store.appendToStream(
      streamName,
      events.map((e) => ({ type: e.type, data: e.data as Record<string, unknown> })),
      { expectedRevision: known.revision === -1n ? 'no_stream' : known.revision },
    );
    return { events, state: events.reduce(decider.evolve, known.state), position: result.position, revision: result.nextExpectedRevision };
  } catch (error) {
    if (error instanceof ConcurrencyError) return handleCommand(store, streamName, decider, command);
    throw error;
  }
}
