import { ProvenanceSchema } from '../../provenance.ts';
import Type, { type TSchema } from 'typebox';
import { identityCheckProvenance, identityEvaluation, takesIdentityCheck } from '../../../domain/collection/kinds/identity.ts';
import { isAwaitingRecipient, isResolved, type CollectionState, type ItemState } from '../../../domain/collection/state.ts';
import { escape } from '../../../domain/shared/html.ts';
import type { ItemPage } from './page.ts';

const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

export const IDENTITY_VERDICTS = ['APROVADO', 'REPROVADO', 'INCONCLUSIVO'] as const;

export const IdentityCheckSchema = Type.Object({
  checkId: Type.String(),
  recipientId: Nullable(Type.String()),
  provider: Type.String({ description: 'sandbox (offline) or facepp' }),
  verdict: Type.Enum(IDENTITY_VERDICTS),
  similarity: Nullable(Type.Number({ minimum: 0, maximum: 1, description: 'document photo against selfie' })),
  liveness: Nullable(Type.Number({ minimum: 0, maximum: 1, description: 'null when the provider does not measure it' })),
  signals: Type.Array(Type.String(), { description: 'anti-fraud signal codes (docs/identity-checks.md)' }),
  evaluation: Type.String({ description: 'Portuguese evaluation, e.g. "Identidade confirmada: semelhança 97%, prova de vida aprovada"' }),
  imageCount: Type.Integer({ description: 'images stored for this check; viewing one is an explicit action recorded in the trail' }),
  completedAt: Type.String({ format: 'date-time' }),
  // Optional: a collection item's details give them, the identity-validations listing does not.
  sandbox: Type.Optional(Type.Boolean({ description: 'the sandbox provider gave it (a marker in the image decides): outside sandbox mode it resolves nothing' })),
  heldForOperator: Type.Optional(Nullable(Type.String({ description: 'why the check left the item to the operator instead of resolving it' }))),
  provenance: Type.Optional(ProvenanceSchema),
});

export const IdentityDetailsSchema = Type.Object(
  {
    checks: Type.Array(IdentityCheckSchema, { description: 'checks with a result, oldest first (never the provider raw payload)' }),
    imageCount: Type.Integer({ description: 'images stored for the item (checks without a result included); never their addresses' }),
    checksWithoutResult: Type.Integer({ description: 'checks the provider did not answer (the person may try again)' }),
  },
  { description: 'IDENTITY items, and SIGNATURE items with flow SIGNATURE_AND_IDENTITY' },
);

/** `details.identity` of an item that takes identity checks; `{}` for any other. */
export function presentIdentityDetails(_state: CollectionState, item: ItemState): object {
  if (!takesIdentityCheck(item)) return {};
  const { checks = [], started = [] } = item.details.identity ?? {};
  return {
    identity: {
      checks: checks.map((check) => ({
        ...check,
        evaluation: identityEvaluation(check),
        sandbox: check.sandbox === true,
        heldForOperator: check.heldForOperator ?? null,
        provenance: identityCheckProvenance(check),
      })),
      imageCount: started.reduce((n, s) => n + s.imageBlobIds.length, 0),
      checksWithoutResult: started.filter((s) => !checks.some((c) => c.checkId === s.checkId)).length,
    },
  };
}

/**
 * The two pictures of a check, as the recipient page asks them: the document with the rear camera,
 * the selfie with the front one (`capture`; a computer offers a file). Exported for the signature
 * page, whose SIGNATURE_AND_IDENTITY parties pass a check before signing.
 */
export function identityForm(token: string, itemId: string): string {
  return `<form method="post" action="/c/${encodeURIComponent(token)}/items/${escape(itemId)}/identity" enctype="multipart/form-data" class="identidade">
<label>Foto do documento de identidade (frente, com a foto)<input type="file" name="document" accept="image/jpeg,image/png" capture="environment" required></label>
<label>Selfie (seu rosto, sem óculos escuros nem boné)<input type="file" name="selfie" accept="image/jpeg,image/png" capture="user" required></label>
<button type="submit">Verificar identidade</button></form>`;
}

/**
 * An IDENTITY item waiting on the person: the two pictures. Otherwise the latest evaluation while
 * it still describes the item: an approval, or an inconclusive check the operator has not decided
 * (a refusal is the page's resend reason, above the pictures asked again).
 */
export const identityPage: ItemPage = {
  render({ token, item }) {
    if (isAwaitingRecipient(item)) return identityForm(token, item.itemId);
    const latest = item.details.identity?.checks.at(-1);
    const current = latest?.verdict === 'APROVADO' || (latest?.verdict === 'INCONCLUSIVO' && !isResolved(item));
    return current ? `<p class="aviso">${escape(identityEvaluation(latest!))}</p>` : null;
  },
};
