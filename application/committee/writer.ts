import { deliberationDecider, type DeliberationCommand } from '../../domain/committee/decider.ts';
import type { DeliberationEvent } from '../../domain/committee/events.ts';
import type { DeliberationState } from '../../domain/committee/state.ts';
import { fold } from '../../domain/shared/decider.ts';
import { ConcurrencyError, type EventStore } from '../../platform/eventstore/port.ts';
import { toDomainEvents } from '../command-handler.ts';

export interface KnownDeliberation {
  state: DeliberationState;
  revision: bigint;
}

export async function readDeliberation(store: EventStore, stream: string): Promise<KnownDeliberation> {
  const recorded = await store.readStream(stream);
  return { state: fold(deliberationDecider, toDomainEvents(recorded)), revision: recorded.length ? recorded[recorded.length - 1]!.revision : -1n };
}

interface Pending {
  command: DeliberationCommand;
  resolve: (events: DeliberationEvent[]) => void;
  reject: (error: unknown) => void;
}

/**
 * The one writer of a deliberation in this process. Commands that arrive while an append is in
 * flight (seven opinions landing together) are decided in turn on the state it holds and appended
 * together: no read per append, no race for the revision. Another writer in between (the orphan
 * sweep) makes it read the stream and decide again.
 */
export class DeliberationWriter {
  private pending: Pending[] = [];
  private flushing = false;

  constructor(
    private readonly store: EventStore,
    private readonly stream: string,
    private known: KnownDeliberation,
  ) {}

  get state(): DeliberationState {
    return this.known.state;
  }

  write(command: DeliberationCommand): Promise<DeliberationEvent[]> {
    return new Promise((resolve, reject) => {
      this.pending.push({ command, resolve, reject });
      if (this.flushing) return;
      this.flushing = true;
      void this.flush();
    });
  }

  private async flush(): Promise<void> {
    while (this.pending.length) {
      const batch = this.pending.splice(0);
      try {
        await this.appendBatch(batch);
      } catch (error) {
        for (const p of batch) p.reject(error);
      }
    }
    // In the same tick as the last emptiness check: a write arriving later starts a new flush.
    this.flushing = false;
  }

  private async appendBatch(batch: Pending[], conflicts = 0): Promise<void> {
    let state = this.known.state;
    const produced = batch.map((p) => {
      const events = deliberationDecider.decide(p.command, state);
      state = events.reduce(deliberationDecider.evolve, state);
      return events;
    });
    const events = produced.flat();
    if (events.length) {
      try {
        const result = await this.store.appendToStream(
          this.stream,
          events.map((e) => ({ type: e.type, data: e.data as unknown as Record<string, unknown> })),
          { expectedRevision: this.known.revision === -1n ? 'no_stream' : this.known.revision },
        );
        this.known = { state, revision: result.nextExpectedRevision };
      } catch (error) {
        if (!(error instanceof ConcurrencyError) || conflicts >= 3) throw error;
        this.known = await readDeliberation(this.store, this.stream);
        return this.appendBatch(batch, conflicts + 1);
      }
    }
    batch.forEach((p, i) => p.resolve(produced[i]!));
  }
}
