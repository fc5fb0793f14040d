import Type from 'typebox';

/** `provenance` on every artifact the API shows (domain/shared/provenance.ts); null fields: recorded before provenance was, unknown. */
export const ProvenanceSchema = Type.Object(
  {
    provider: Type.Union([Type.String(), Type.Null()], { description: 'the provider that produced it (SANDBOX, BRASILAPI, CREDIT_POLICY_ENGINE, ANALYST, a model name, facepp, ...)' }),
    sandbox: Type.Union([Type.Boolean(), Type.Null()], {
      description: 'true: a sandbox result (made up by a sandbox provider or the offline model, or computed from such data), never a real one; null: unknown',
    }),
  },
  { description: 'which provider produced it and whether it is a sandbox result, as recorded when it was produced' },
);
