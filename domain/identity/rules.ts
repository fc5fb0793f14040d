import { DomainError } from '../shared/errors.ts';
import { Messages } from '../shared/messages.ts';

export function requireName(name: string): string {
  const trimmed = name.trim();
  if (!trimmed) throw new DomainError('invalid', Messages.nameRequired);
  return trimmed;
}

/** Module and permission lists are sets: order and repetition carry no meaning. */
export function sameSet(a: readonly string[], b: readonly string[]): boolean {
  const left = new Set(a);
  const right = new Set(b);
  return left.size === right.size && [...left].every((x) => right.has(x));
}
