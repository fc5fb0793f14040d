import type { ConsentConfig, ConsentItemState } from './consent.ts';
import type { FormDefinition, FormItemState } from './form.ts';
import type { IdentityItemState } from './identity.ts';
import type { SignatureConfig, SignatureItemState } from './signature.ts';

/**
 * What an item of a kind asks beyond title and instructions, as a template or an ad hoc item sets
 * it and the collection keeps it (one field per kind; the file merges by union).
 */
export interface ItemConfig {
  form?: FormDefinition;
  consent?: ConsentConfig;
  signature?: SignatureConfig;
}

/** What an item of a kind has received so far (one field per kind; the file merges by union). */
export interface ItemDetails {
  form?: FormItemState;
  consent?: ConsentItemState;
  identity?: IdentityItemState;
  signature?: SignatureItemState;
}
