import type { Module } from '../../identity/access.ts';
import type { CollectionCommand } from '../commands.ts';
import type { ItemDefinition } from '../definition.ts';
import type { CollectionModuleEvent } from '../payloads.ts';
import type { CollectionState } from '../state.ts';

/** Appends the completion when `events` leave every item of a sent collection resolved (see decider.ts). */
export type Complete = (command: CollectionCommand, state: CollectionState, events: CollectionModuleEvent[]) => CollectionModuleEvent[];

/**
 * One item kind's share of the collection decider, so FORM, CONSENT, IDENTITY and SIGNATURE each
 * live in one file. `decide` and `evolve` answer null for a command or event that is not theirs;
 * the collection decider asks each kind in turn after its own cases.
 */
export interface CollectionKind {
  decide(command: CollectionCommand, state: CollectionState, complete: Complete): CollectionModuleEvent[] | null;
  evolve(state: CollectionState, event: CollectionModuleEvent): CollectionState | null;
  /**
   * Refuses (DomainError 'invalid') an item whose configuration does not fit this kind: an item of
   * the kind without a valid config, or another kind's item carrying this kind's config. Templates
   * and collections both call it for every item.
   */
  validateItem(item: Pick<ItemDefinition, 'kind' | 'config'>): void;
  /**
   * The module an organization must have contracted to ask for this item, beyond the collection's
   * own (null: none). Asking for it without the module is 403 naming the item (contract,
   * Authentication 7).
   */
  requiredModule?(item: Pick<ItemDefinition, 'kind' | 'config'>): Module | null;
}
