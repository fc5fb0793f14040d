import Type, { type TSchema } from 'typebox';
import { ACTOR_TYPES } from '../../domain/collection/enums.ts';
import { COLLECTION_ACTIONS } from '../../domain/collection/events.ts';
import { MAX_INT32 } from '../validation.ts';

const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
const Hex64 = (description: string) => Type.String({ pattern: '^[0-9a-f]{64}$', description });

export const TrailQuery = Type.Object({
  skip: Type.Integer({ minimum: 0, maximum: MAX_INT32, default: 0 }),
  take: Type.Integer({ minimum: 1, maximum: 500, default: 100 }),
});

export const TrailExportQuery = Type.Object({
  format: Type.Union([Type.Literal('json'), Type.Literal('csv')], { default: 'json', description: 'json (what scripts/verify-trail.ts reads) or csv (one row per entry, seals in the last columns).' }),
});

const SealSchema = Type.Object(
  {
    chainHash: Hex64("the chain head this seal signed; equal to the entry's chainHash unless the trail was altered"),
    signedAt: Type.String({ description: "the entry's own time (occurredAt), so signing again gives the same bytes; when it was sealed is the timestamp's time" }),
    keyId: Type.String({ description: 'a key of GET /.well-known/collection-trail-keys' }),
    signature: Type.String({ description: 'Ed25519 over the RFC 8785 encoding of {collectionId, seq, chainHash, signedAt, keyId}, base64url' }),
    timestamp: Nullable(
      Type.String({
        description:
          'RFC 3161 TimeStampToken (DER, base64) whose imprint is the SHA-256 of the RFC 8785 encoding of {collectionId, seq, chainHash, signedAt, keyId, signature}; null when no TSA_URL is configured',
      }),
    ),
  },
  {
    description:
      'The signed chain head at this entry: every status change, and the last entry the sealer found each time (within TRAIL_SEAL_MAX_DELAY_S); null on an entry a later seal covers, and until signed.',
  },
);

export const TrailEntrySchema = Type.Object({
  seq: Type.Integer({ minimum: 1, description: "position in the collection's trail, from 1" }),
  action: Type.Union(COLLECTION_ACTIONS.map((a) => Type.Literal(a.action))),
  actorType: Type.Union(ACTOR_TYPES.map((a) => Type.Literal(a))),
  actorId: Nullable(Type.String({ description: 'the user, credential or recipient that acted; null for SYSTEM' })),
  itemId: Nullable(Type.String()),
  recipientId: Nullable(Type.String()),
  occurredAt: Type.String(),
  payload: Type.Record(Type.String(), Type.Unknown()),
  entryHash: Hex64("SHA-256 of the RFC 8785 encoding of the entry's envelope"),
  chainHash: Hex64('SHA-256 of the previous chainHash followed by this entryHash (hex text); genesis 64 zeros'),
  seal: Nullable(SealSchema),
});

export const TrailPageSchema = Type.Object({
  total: Type.Integer(),
  skip: Type.Integer(),
  take: Type.Integer(),
  entries: Type.Array(TrailEntrySchema),
});

export const TrailKeysSchema = Type.Object({
  keys: Type.Array(
    Type.Object({
      keyId: Type.String(),
      algorithm: Type.Literal('Ed25519'),
      publicKey: Type.String({ description: 'SPKI, PEM' }),
      createdAt: Type.String(),
      retiredAt: Nullable(Type.String({ description: 'when it stopped signing; it still verifies the seals it made' })),
    }),
  ),
});
