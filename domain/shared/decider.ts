/**
 * The shape every aggregate follows (Emmett-style deciders): pure functions, no I/O, no clock,
 * no random. Anything time- or id-dependent arrives inside the command.
 */
export interface DomainEvent<Type extends string = string, Data extends object = object> {
  type: Type;
  data: Data;
}

export interface Decider<Command, Event extends DomainEvent, State> {
  /** The state of a stream that has no events yet. */
  initialState: () => State;
  /** Fold one event into the state. Must accept every event the aggregate ever wrote. */
  evolve: (state: State, event: Event) => State;
  /** Validate the command against the state; return the events to append or throw DomainError. */
  decide: (command: Command, state: State) => Event[];
}

export function fold<Event extends DomainEvent, State>(decider: Pick<Decider<unknown, Event, State>, 'initialState' | 'evolve'>, events: readonly Event[]): State {
  return events.reduce(decider.evolve, decider.initialState());
}
