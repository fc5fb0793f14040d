import * as assert from 'uvu/assert';
import { fold, type Decider, type DomainEvent } from '../../domain/shared/decider.ts';
import { DomainError } from '../../domain/shared/errors.ts';

/** The refusal a domain rule throws: its kind, its text (exact, or matching) and, when given, its extra fields. */
export function assertRefused(run: () => unknown, kind: DomainError['kind'], message: string | RegExp, extra?: Record<string, unknown>): void {
  let refusal: unknown;
  try {
    run();
  } catch (error) {
    refusal = error;
  }
  if (refusal === undefined) assert.unreachable('expected a refusal, it was accepted');
  assert.instance(refusal, DomainError);
  assert.is((refusal as DomainError).kind, kind);
  if (typeof message === 'string') assert.is((refusal as DomainError).message, message);
  else assert.match((refusal as DomainError).message, message);
  if (extra) assert.equal((refusal as DomainError).extra, extra);
}

/**
 * The one shape of every decider test: given events, when a command, then the events decided or
 * the refusal. `decided()` hands the events back for tests that look at them piece by piece.
 */
export function given<C, E extends DomainEvent, S>(decider: Decider<C, E, S>, events: readonly E[] = []) {
  const state = fold(decider, events);
  return {
    state,
    when(command: C) {
      const decide = () => decider.decide(command, state);
      return {
        decided: decide,
        then(expected: readonly E[], message?: string): void {
          assert.equal(decide(), expected, message);
        },
        thenError(kind: DomainError['kind'], message: string | RegExp, extra?: Record<string, unknown>): void {
          assertRefused(decide, kind, message, extra);
        },
      };
    },
  };
}
