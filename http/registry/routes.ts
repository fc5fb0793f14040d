import Type from 'typebox';
import { actorOf } from '../../application/collection/actor.ts';
import { createRegistry, decideDocument, downloadDocument, reprocessDocument, updateRegistry } from '../../application/registry/commands.ts';
import { receiveDocument, REGISTRY_DOCUMENT_MAX_BYTES } from '../../application/registry/intake-commands.ts';
import { onRegistryId } from '../../application/registry/registry-lookups.ts';
import type { AppContext } from '../../application/context.ts';
import { RegistryMessages } from '../../domain/registry/messages.ts';
import { DomainError } from '../../domain/shared/errors.ts';
import type { Position } from '../../platform/eventstore/port.ts';
import { REGISTRY_PROJECTION } from '../../projections/registry/projection.ts';
import { findRegistry, findRegistryDocument, listRegistries, listRegistryDocuments, registryRequirements } from '../../projections/registry/queries.ts';
import { Gates } from '../gates.ts';
import { route, type RouteTable } from '../route.ts';
import {
  CreateRegistryBody,
  DecisionBody,
  DocumentParams,
  DocumentSchema,
  RegistryDetailSchema,
  RegistryListQuery,
  RegistryListSchema,
  RegistryParams,
  ReprocessBody,
  UpdateRegistryBody,
  UploadDocumentBody,
} from './schemas.ts';
import { presentRegistry, presentDocument } from './present.ts';

const DOCUMENTS = '/v1/registry/:id/documents';
const DOCUMENT = `${DOCUMENTS}/:documentId`;
const FILE_TYPES = ['application/pdf', 'image/jpeg', 'image/png'];

async function registryReply(app: AppContext, organizationId: string, registryId: string, position: Position | null = null) {
  // Kept after a write: the reply is the read model's view (its requirements are computed from every document's row), which no command result holds.
  await app.readYourWrites([REGISTRY_PROJECTION], position);
  const view = await findRegistry(app.db, organizationId, registryId);
  if (!view) throw new DomainError('not_found', RegistryMessages.registryNotFound);
  return { ...presentRegistry(view), requirements: await registryRequirements(app.db, organizationId, view, app.clock.now().toISOString()) };
}

async function documentReply(app: AppContext, organizationId: string, registryId: string, documentId: string, position: Position | null = null) {
  // Kept after a write, as for registryReply: the document's view (extraction, validity) is the read model's.
  await app.readYourWrites([REGISTRY_PROJECTION], position);
  const view = await findRegistryDocument(app.db, organizationId, registryId, documentId);
  if (!view) throw new DomainError('not_found', RegistryMessages.documentNotFound);
  return presentDocument(view);
}

/** Names in a header must be ASCII: the original goes percent-encoded (RFC 6266 filename*). */
const contentDisposition = (fileName: string) => `attachment; filename="${fileName.replace(/[^\x20-\x7e]|["\\]/g, '_')}"; filename*=UTF-8''${encodeURIComponent(fileName)}`;

export const registryRoutes: RouteTable = {
  module: 'registry',
  description: 'Registries: one record per person or company (CPF/CNPJ) with contacts, documents, their analysis and the KYC status',
  routes: [
    route({
      method: 'post',
      path: '/v1/registry',
      summary: 'Create the registry of a CPF (PERSON) or CNPJ (COMPANY)',
      description: `One per document per organization: 409 \`${RegistryMessages.registryExists}\` with the existing registryId.`,
      gate: Gates.registry,
      body: CreateRegistryBody,
      responses: { 201: RegistryDetailSchema },
      errors: [409],
      async handle({ app, principal, body }) {
        const { registryId, position } = await createRegistry(app, principal, body);
        return { status: 201, body: await registryReply(app, principal.organizationId, registryId, position) };
      },
    }),
    route({
      method: 'get',
      path: '/v1/registry',
      summary: "The organization's registries, most recently changed first",
      gate: Gates.registry,
      query: RegistryListQuery,
      responses: { 200: RegistryListSchema },
      async handle({ app, principal, query }) {
        const { total, items } = await listRegistries(app.db, principal.organizationId, query);
        return { total, items: items.map(presentRegistry) };
      },
    }),
    route({
      method: 'get',
      path: '/v1/registry/:id',
      summary: 'A registry with its KYC status, completeness and the requirements behind it',
      gate: Gates.registry,
      params: RegistryParams,
      responses: { 200: RegistryDetailSchema },
      handle: ({ app, principal, params }) => onRegistryId(app, principal.organizationId, params.id, (id) => registryReply(app, principal.organizationId, id)),
    }),
    route({
      method: 'patch',
      path: '/v1/registry/:id',
      summary: 'Change name, contacts or basic data (document and entity type never change)',
      gate: Gates.registry,
      params: RegistryParams,
      body: UpdateRegistryBody,
      responses: { 200: RegistryDetailSchema },
      async handle({ app, principal, params, body }) {
        const position = await updateRegistry(app, principal, params.id, body);
        return registryReply(app, principal.organizationId, params.id, position);
      },
    }),
    route({
      method: 'post',
      path: DOCUMENTS,
      summary: 'Upload a document (multipart: file, expectedType); its analysis starts at once',
      description: `PDF, JPEG or PNG, typed by its bytes; at most ${REGISTRY_DOCUMENT_MAX_BYTES / (1024 * 1024)} MB (413). Follow the analysis by GET or the registry.document.* webhooks.`,
      gate: Gates.registry,
      params: RegistryParams,
      upload: { field: 'file', maxBytes: REGISTRY_DOCUMENT_MAX_BYTES },
      body: UploadDocumentBody,
      responses: { 201: DocumentSchema },
      async handle({ app, principal, params, body, file }) {
        const { registryDocumentId, position } = await receiveDocument(app, {
          organizationId: principal.organizationId,
          registryId: params.id,
          fileName: file!.fileName,
          bytes: file!.bytes,
          expectedType: body.expectedType ?? null,
          source: null,
          actor: actorOf(principal),
        });
        return { status: 201, body: await documentReply(app, principal.organizationId, params.id, registryDocumentId, position) };
      },
    }),
    route({
      method: 'get',
      path: DOCUMENTS,
      summary: "A registry's documents with their latest opinion, newest first",
      gate: Gates.registry,
      params: RegistryParams,
      responses: { 200: Type.Array(DocumentSchema) },
      async handle({ app, principal, params }) {
        return onRegistryId(app, principal.organizationId, params.id, async (registryId) => {
          if (!(await findRegistry(app.db, principal.organizationId, registryId))) throw new DomainError('not_found', RegistryMessages.registryNotFound);
          return (await listRegistryDocuments(app.db, principal.organizationId, registryId)).map(presentDocument);
        });
      },
    }),
    route({
      method: 'get',
      path: DOCUMENT,
      summary: 'A document with its opinion (type, verdict, score, reason, attempt, status) and any operator decision',
      gate: Gates.registry,
      params: DocumentParams,
      responses: { 200: DocumentSchema },
      handle: ({ app, principal, params }) => onRegistryId(app, principal.organizationId, params.id, (id) => documentReply(app, principal.organizationId, id, params.documentId)),
    }),
    route({
      method: 'get',
      path: `${DOCUMENT}/download`,
      summary: 'The file itself; every download is recorded (RegistryDocumentDownloaded)',
      gate: Gates.registry,
      params: DocumentParams,
      files: FILE_TYPES,
      async handle({ app, principal, params }) {
        const blob = await onRegistryId(app, principal.organizationId, params.id, (id) => downloadDocument(app, principal, id, params.documentId));
        return { status: 200, raw: blob.bytes, headers: { 'content-type': blob.contentType, 'content-disposition': contentDisposition(blob.fileName) } };
      },
    }),
    route({
      method: 'post',
      path: `${DOCUMENT}/reprocess`,
      summary: 'Analyse again (attempt + 1), optionally taking forceType as the type; the earlier opinion is replaced',
      description: `409 \`${RegistryMessages.stillAnalysing}\` while an analysis runs.`,
      gate: Gates.registry,
      params: DocumentParams,
      body: ReprocessBody,
      responses: { 202: DocumentSchema },
      errors: [409],
      async handle({ app, principal, params, body }) {
        const position = await reprocessDocument(app, principal, params.id, params.documentId, body.forceType ?? null);
        return { status: 202, body: await documentReply(app, principal.organizationId, params.id, params.documentId, position) };
      },
    }),
    route({
      method: 'post',
      path: `${DOCUMENT}/decision`,
      summary: "An operator's verdict against the automatic opinion (VALIDO validates the document, INVALIDO rejects it, the others leave it in MANUAL_REVIEW)",
      description: `409 \`${RegistryMessages.stillAnalysing}\` while an analysis runs.`,
      gate: Gates.registry,
      params: DocumentParams,
      body: DecisionBody,
      responses: { 200: DocumentSchema },
      errors: [409],
      async handle({ app, principal, params, body }) {
        const position = await decideDocument(app, principal, params.id, params.documentId, { verdict: body.verdict, comment: body.comment ?? null });
        return documentReply(app, principal.organizationId, params.id, params.documentId, position);
      },
    }),
  ],
};
