import Type from 'typebox';
import type { ItemKind } from '../../../domain/collection/enums.ts';
import type { CollectionState, ItemState } from '../../../domain/collection/state.ts';
import type { RouteTable } from '../../route.ts';
import { ConsentConfigSchema, ConsentDetailsSchema, consentPage, consentRoutes, presentConsentDetails } from './consent.ts';
import { FormConfigSchema, FormDetailsSchema, formRoutes, presentFormDetails } from './form.ts';
import { formPage } from './form-page.ts';
import { identityPage, IdentityDetailsSchema, presentIdentityDetails } from './identity.ts';
import { identityListingRoutes } from './identity-listing.ts';
import { identityRoutes } from './identity-routes.ts';
import type { ItemPage } from './page.ts';
import { SignatureConfigSchema } from './signature.ts';
import { signedDocumentRoutes } from './signed-document.ts';
import { signatureCallbackRoutes } from './signature-callbacks.ts';
import { presentSignatureDetails, SignatureDetailsSchema } from './signature-details.ts';
import { signaturePage } from './signature-page.ts';
import { signatureRecipientRoutes } from './signature-routes.ts';

/*
 * The HTTP side of the item kinds (FORM, CONSENT, IDENTITY, SIGNATURE): one line per kind in each
 * list below, so the file merges by union.
 */

/** `config` of a template item or an ad hoc item. */
export const ItemConfigSchema = Type.Object(
  {
    form: Type.Optional(FormConfigSchema),
    consent: Type.Optional(ConsentConfigSchema),
    signature: Type.Optional(SignatureConfigSchema),
  },
  { description: "what a FORM, CONSENT or SIGNATURE item asks; only the field of the item's kind" },
);

/** `details` of an item in a collection's detail: what the kind has received so far. */
export const ItemDetailsSchema = Type.Object(
  {
    form: Type.Optional(FormDetailsSchema),
    consent: Type.Optional(ConsentDetailsSchema),
    signature: Type.Optional(SignatureDetailsSchema),
    identity: Type.Optional(IdentityDetailsSchema),
  },
  { description: 'what a FORM, CONSENT, IDENTITY or SIGNATURE item has received so far' },
);

/** Each kind's part of `details`: an object with its field set for an item of the kind, {} otherwise. */
const DETAIL_PRESENTERS: Array<(state: CollectionState, item: ItemState) => object> = [presentFormDetails, presentConsentDetails, presentSignatureDetails, presentIdentityDetails];

export function presentItemDetails(state: CollectionState, item: ItemState): object {
  return Object.assign({}, ...DETAIL_PRESENTERS.map((present) => present(state, item)));
}

/** The recipient page's controls per kind (DOCUMENT and CUSTOM use the page's upload form). */
export const ITEM_PAGES: Partial<Record<ItemKind, ItemPage>> = {
  FORM: formPage,
  CONSENT: consentPage,
  SIGNATURE: signaturePage,
  IDENTITY: identityPage,
};

/** Routes of the kinds: the recipient's answers under /c/{token}, the operator's under /v1/collections. */
export const collectionKindRoutes: RouteTable = {
  module: 'collection',
  description: 'Forms, consents, identity checks and signatures of collection items',
  routes: [...formRoutes, ...consentRoutes, ...signedDocumentRoutes, ...signatureRecipientRoutes, ...signatureCallbackRoutes, ...identityRoutes, ...identityListingRoutes],
};
