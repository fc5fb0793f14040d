import Type from 'typebox';
import { eraseCollectionRecipient, erasePersonalData } from '../../application/personal-data/erase.ts';
import { replyAfterWrite } from '../../application/read-your-writes.ts';
import { COLLECTION_IDENTITY_PROJECTION } from '../../projections/collection/identity-projection.ts';
import type { DocumentType } from '../../domain/shared/document.ts';
import { PROPOSAL_PROJECTION } from '../../projections/proposal/projection.ts';
import { REPORT_PROJECTION } from '../../projections/report/projection.ts';
import { ObjectIdSchema, route, type RouteTable } from '../route.ts';

const EraseBody = Type.Object({
  document: Type.String({ minLength: 1, description: 'CPF (11 digits) or CNPJ (14 digits), masked or not' }),
  type: Type.String({
    pattern: '^(?:[cC][pP][fF]|[cC][nN][pP][jJ])$',
    errorMessage: 'type must be one of the following values: cpf, cnpj',
  }),
});

const Erasure = Type.Object({
  subjectId: Type.String({ description: 'HMAC of the document: how the erasure appears in events and logs' }),
  erasedAt: Type.String({ format: 'date-time' }),
  keysErased: Type.Integer({ description: '0 when the person was already erased or never seen' }),
  exportsDeleted: Type.Integer({ description: 'export files (PDF, XLSX) of their reports deleted' }),
});

const RecipientErasure = Type.Object({
  subjectId: Type.String({ description: 'HMAC of the recipient: how the erasure appears in events and logs' }),
  erasedAt: Type.String({ format: 'date-time' }),
  keysErased: Type.Integer({ description: '0 when the recipient was already erased' }),
  imagesDeleted: Type.Integer({ description: 'identity check images (document photo, selfie) of the recipient deleted' }),
});

/** Ours (the spec has no erasure route): LGPD art. 18 erasure of one person's data. */
export const personalDataRoutes: RouteTable = {
  module: 'personal-data',
  routes: [
    route({
      method: 'post',
      path: '/v1/personal-data/erase',
      summary: "Erase a person's personal data (LGPD): their reports then show the document and names as ***",
      description: "Deletes the key that sealed the person's data in events; irreversible. Gate: can-manage-settings.",
      gate: { permissions: ['can-manage-settings'] },
      body: EraseBody,
      responses: { 200: Erasure },
      // What is erased is found in these read models (the person's reports and exports, checks, proposals).
      reads: [REPORT_PROJECTION, COLLECTION_IDENTITY_PROJECTION, PROPOSAL_PROJECTION],
      async handle({ app, principal, body }) {
        const written = await erasePersonalData(app, {
          organizationId: principal.organizationId,
          document: body.document,
          type: body.type.toLowerCase() as DocumentType,
          erasedBy: principal.userId,
        });
        return replyAfterWrite(app, principal, written, ({ event, exportsDeleted }) => ({ subjectId: event.subjectId, erasedAt: event.erasedAt, keysErased: event.keysErased, exportsDeleted }));
      },
    }),
    route({
      method: 'post',
      path: '/v1/personal-data/erase-recipient',
      summary: "Erase a collection recipient's personal data (LGPD): their contacts, evidence and identity images",
      description:
        'A party of a collection (recipients have no CPF there): deletes the key that sealed their name, contacts, messages, consent and signature evidence, ' +
        'deletes the images of their identity checks and drops those checks from the identity validation listing; irreversible. Gate: can-manage-settings. ' +
        "404 for another organization's collection or a recipient it does not have.",
      gate: { permissions: ['can-manage-settings'] },
      body: Type.Object({ collectionId: ObjectIdSchema(), recipientId: ObjectIdSchema() }),
      responses: { 200: RecipientErasure },
      errors: [404],
      reads: [COLLECTION_IDENTITY_PROJECTION],
      async handle({ app, principal, body }) {
        const written = await eraseCollectionRecipient(app, { organizationId: principal.organizationId, ...body, erasedBy: principal.userId });
        return replyAfterWrite(app, principal, written, ({ event, imagesDeleted }) => ({ subjectId: event.subjectId, erasedAt: event.erasedAt, keysErased: event.keysErased, imagesDeleted }));
      },
    }),
  ],
};
