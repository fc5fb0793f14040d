import type { CollectionState, ItemState, RecipientState } from '../../../domain/collection/state.ts';

/** One kind's part of the recipient page: the controls of one item for the person holding the link. */
export interface ItemPage {
  render(input: { token: string; state: CollectionState; recipient: RecipientState; item: ItemState }): string | null;
}
