import Type from 'typebox';
import { downloadSignedCopy } from '../../../application/collection/signed-document/download.ts';
import { SignedDocumentMessages } from '../../../domain/collection/kinds/signed-document.ts';
import { Gates } from '../../gates.ts';
import { ObjectIdSchema, route } from '../../route.ts';

// Not ItemParams from ../schemas.ts: that file imports this folder's index (a cycle at load).
const SignedDocumentParams = Type.Object({ id: ObjectIdSchema(), itemId: ObjectIdSchema() });
const SignedDocumentQuery = Type.Object({
  recipientId: Type.Optional(ObjectIdSchema()),
});

/** The signed PDF copy of a SIGNATURE item (docs/signatures.md, "The signed copy"). */
export const signedDocumentRoutes = [
  route({
    method: 'get',
    path: '/v1/collections/:id/items/:itemId/signed-document',
    summary: 'The signed PDF copy of a SIGNATURE item; every download is recorded in the trail (ITEM_FILE_DOWNLOADED)',
    description:
      'JOINT items have one copy; INDIVIDUAL items one per party, named by `recipientId` (required). ' +
      '`ETag` and `x-content-sha256` carry the SHA-256 of the bytes, the one `collection.signature.document` announced. ' +
      `404 \`${SignedDocumentMessages.notGenerated}\` until the copy is produced.`,
    gate: Gates.collections,
    params: SignedDocumentParams,
    query: SignedDocumentQuery,
    files: ['application/pdf'],
    errors: [409],
    async handle({ app, principal, params, query }) {
      const { blob, sha256 } = await downloadSignedCopy(app, principal, params.id, params.itemId, query.recipientId ?? null);
      const headers = { 'content-type': 'application/pdf', 'content-disposition': `attachment; filename="${blob.fileName}"`, etag: `"${sha256}"`, 'x-content-sha256': sha256 };
      return { status: 200, raw: blob.bytes, headers };
    },
  }),
];
