import { setTimeout as sleep } from 'node:timers/promises';
import type { Decider, DomainEvent } from '../domain/shared/decider.ts';
import { fold } from '../domain/shared/decider.ts';
import { DomainError } from '../domain/shared/errors.ts';
import { Messages } from '../domain/shared/messages.ts';
import { ConcurrencyError, type EventStore, type Position, type RecordedEvent } from '../platform/eventstore/port.ts';

export interface HandleResult<Event extends DomainEvent, State> {
  /** Events the command produced (empty when the decider decided nothing changes). */
  events: Event[];
  /** State after the new events. */
  state: State;
  /** Position of the last appended event, or null when nothing was appended. */
  position: Position | null;
  /** Revision of the stream after the command (-1n when the stream still does not exist). */
  revision: bigint;
}

/**
 * What a command of a module hands back to its caller: the state its events led to (the reply is
 * built from it, never behind) and the position of its last event, for the read-your-writes of
 * the GET that follows (null when it appended nothing).
 */
export interface Written<State> {
  state: State;
  position: Position | null;
}

export interface HandleOptions<State = unknown> {
  /** How many times to reload and decide again after a concurrency conflict. */
  retries?: number;
  metadata?: Record<string, unknown>;
  /** Source of the backoff's jitter (tests pin it). */
  random?: () => number;
  /**
   * The stream as the caller has just read it (loadState): the first decision is made on it
   * instead of reading again. The append still names its revision, so a stream that moved since
   * is a conflict like any other, and the retry reads it afresh. `newStream(decider)` is the
   * state of a stream whose id was just drawn, so cannot exist yet: no read of an empty stream.
   */
  loaded?: { state: State; revision: bigint };
}

/** The state of a stream that does not exist yet, for `loaded` (a fresh id, or a known-empty stream). */
export const newStream = <State>(decider: Pick<Decider<unknown, DomainEvent, State>, 'initialState'>) => ({ state: decider.initialState(), revision: -1n });

const DEFAULT_RETRIES = 5;
const BACKOFF_BASE_MS = 5;
const BACKOFF_MAX_MS = 250;

/**
 * How long to wait before retry `attempt` (0-based) after a conflict: "full jitter" exponential
 * backoff. Writers that collided draw different waits, so they stop colliding on the next try
 * instead of retrying in lockstep.
 */
export function conflictBackoffMs(attempt: number, random: () => number = Math.random): number {
  return Math.floor(random() * Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS * 2 ** attempt));
}

export function toDomainEvents<Event extends DomainEvent>(recorded: readonly RecordedEvent[]): Event[] {
  return recorded.map((e) => ({ type: e.type, data: e.data }) as unknown as Event);
}

/**
 * Load the stream, fold it, decide, append with the revision read. A conflict means another
 * writer got in between: wait a little, reload and decide again, because the command may now
 * mean something else (or be refused). A refused command throws before anything is appended;
 * a stream still contended after every retry is a 409 the caller may retry, never a 500.
 */
export async function handleCommand<Command, Event extends DomainEvent, State>(
  store: EventStore,
  streamName: string,
  decider: Decider<Command, Event, State>,
  command: Command,
  options: HandleOptions<State> = {},
): Promise<HandleResult<Event, State>> {
  const retries = options.retries ?? DEFAULT_RETRIES;
  for (let attempt = 0; ; attempt++) {
    const { state, revision } = attempt === 0 && options.loaded ? options.loaded : await loadState(store, streamName, decider);
    const events = decider.decide(command, state);
    if (events.length === 0) return { events, state, position: null, revision };
    try {
      const result = await store.appendToStream(
        streamName,
        events.map((e) => ({ type: e.type, data: e.data as Record<string, unknown>, metadata: options.metadata })),
        { expectedRevision: revision === -1n ? 'no_stream' : revision },
      );
      return {
        events,
        state: events.reduce(decider.evolve, state),
        position: result.position,
        revision: result.nextExpectedRevision,
      };
    } catch (error) {
      if (!(error instanceof ConcurrencyError)) throw error;
      if (attempt >= retries) throw new DomainError('conflict', Messages.concurrentUpdate);
      await sleep(conflictBackoffMs(attempt, options.random));
    }
  }
}

/** Read a stream and fold it: the current state of one aggregate, for process managers. */
export async function loadState<Event extends DomainEvent, State>(
  store: EventStore,
  streamName: string,
  decider: Pick<Decider<unknown, Event, State>, 'initialState' | 'evolve'>,
): Promise<{ state: State; revision: bigint }> {
  const recorded = await store.readStream(streamName);
  return {
    state: fold(decider, toDomainEvents<Event>(recorded)),
    revision: recorded.length ? recorded[recorded.length - 1]!.revision : -1n,
  };
}
