import { createHash } from 'node:crypto';
import { keyringFor } from '../../config/index.ts';
import { fileTypeFromBuffer } from 'file-type';
import type { ExpectedDocumentType } from '../../domain/collection/enums.ts';
import { registryDocumentDecider } from '../../domain/registry/document-decider.ts';
import { registryDocumentStream, type DocumentSource } from '../../domain/registry/document-events.ts';
import { registryDecider } from '../../domain/registry/decider.ts';
import { registryStream, type EntityType } from '../../domain/registry/events.ts';
import { RegistryMessages } from '../../domain/registry/messages.ts';
import { parseDocument, stripMask } from '../../domain/shared/document.ts';
import { DomainError } from '../../domain/shared/errors.ts';
import type { Position } from '../../platform/eventstore/port.ts';
import { PostgresBlobStore } from '../blob-store.ts';
import { registryLookupOf } from './registry-lookups.ts';
import { handleCommand, loadState } from '../command-handler.ts';
import type { AppContext } from '../context.ts';
import type { Actor } from '../../domain/collection/commands.ts';

/** 16 MB per file, the contract's limit for files attached to reports. */
export const REGISTRY_DOCUMENT_MAX_BYTES = 16 * 1024 * 1024;

/** The types a registry document may have, sniffed from its bytes (never its name). */
const ACCEPTED_TYPES: ReadonlySet<string> = new Set(['application/pdf', 'image/jpeg', 'image/png']);

type App = Pick<AppContext, 'store' | 'ids' | 'clock' | 'db'>;

/**
 * A registry's id is derived from organization and CPF/CNPJ: two writers creating the same
 * registry at once write the same new stream, and the event store lets only one of them create
 * it. The other reloads and finds it (handleCommand retries on the conflict).
 *
 * The derivation is keyed (HMAC with the personal-data pepper, the one subject ids use): a
 * CPF has about 10^9 values, so an unkeyed hash of it would give the document back, even after
 * an erasure, to anyone who tries them all. Registries created before the key
 * (SHA-256 of `registry:<org>:<document>`) are found through `registry_lookups`, which the start
 * of the service fills from the read table (registry-lookups.ts); the rest get the first 24 hex
 * of the HMAC, ObjectId-shaped as before.
 */
export async function registryIdOf(app: Pick<AppContext, 'config' | 'db'>, organizationId: string, document: string): Promise<string> {
  const lookup = registryLookupOf(keyringFor(app.config, 'pepper'), organizationId, document);
  const known = await app.db('registry_lookups').where({ organization_id: organizationId, lookup }).first('registry_id');
  return known?.registry_id ?? lookup.slice(0, 24);
}

/** A CPF for a PERSON, a CNPJ for a COMPANY, with valid check digits; digits only. */
export function documentOf(document: string, entityType: EntityType): string {
  const digits = stripMask(document);
  if (/^\d+$/.test(digits) && (digits.length === 11) !== (entityType === 'PERSON')) throw new DomainError('invalid', RegistryMessages.entityTypeMismatch);
  return parseDocument(document, entityType === 'PERSON' ? 'cpf' : 'cnpj').digits;
}

/** Find-or-create the registry of that CPF/CNPJ in the organization; position is null when it existed. */
export async function ensureRegistry(
  app: App & Pick<AppContext, 'config'>,
  organizationId: string,
  subject: { document: string; name: string; entityType: EntityType; selfDeclared?: boolean },
  actor: Actor,
): Promise<{ registryId: string; position: Position | null }> {
  const document = documentOf(subject.document, subject.entityType);
  const registryId = await registryIdOf(app, organizationId, document);
  const { position } = await handleCommand(app.store, registryStream(registryId), registryDecider, {
    type: 'CreateRegistry',
    ifAbsent: true,
    organizationId,
    registryId,
    document,
    entityType: subject.entityType,
    name: subject.name,
    contacts: [],
    basicData: {},
    ...(subject.selfDeclared && { selfDeclared: true }),
    ...actor,
    at: app.clock.now().toISOString(),
  });
  return { registryId, position };
}

/** The media type of an accepted file, from its bytes; DomainError (400) otherwise. */
export async function sniffDocumentType(bytes: Buffer): Promise<string> {
  if (bytes.length === 0) throw new DomainError('invalid', RegistryMessages.emptyFile);
  if (bytes.length > REGISTRY_DOCUMENT_MAX_BYTES) throw new DomainError('invalid', RegistryMessages.fileTooLarge(String(REGISTRY_DOCUMENT_MAX_BYTES / (1024 * 1024))));
  const sniffed = await fileTypeFromBuffer(bytes);
  if (!sniffed || !ACCEPTED_TYPES.has(sniffed.mime)) throw new DomainError('invalid', RegistryMessages.unsupportedFile);
  return sniffed.mime;
}

/**
 * Accept a file for a registry: type sniffed from the bytes (PDF, JPEG, PNG), size bounded, bytes
 * stored, RegistryDocumentReceived appended. The analysis process manager takes it from there and
 * ends with RegistryDocumentAssessed or RegistryDocumentFailed, each carrying `source`.
 */
export async function receiveDocument(
  app: App,
  input: {
    organizationId: string;
    registryId: string;
    fileName: string;
    bytes: Buffer;
    expectedType: ExpectedDocumentType | null;
    source: DocumentSource | null;
    /** The file belongs to a public form's intake not linked yet: kept out of the registry until it is. */
    intake?: boolean;
    actor: Actor;
  },
): Promise<{ registryDocumentId: string; position: Position | null }> {
  const mimeType = await sniffDocumentType(input.bytes);
  const { state: registry } = await loadState(app.store, registryStream(input.registryId), registryDecider);
  if (!registry.record || registry.record.organizationId !== input.organizationId) throw new DomainError('not_found', RegistryMessages.registryNotFound);
  const registryDocumentId = app.ids.objectId();
  const blobId = app.ids.objectId();
  await new PostgresBlobStore(app.db).put({ id: blobId, organizationId: input.organizationId, contentType: mimeType, fileName: input.fileName, bytes: input.bytes });
  const { position } = await handleCommand(app.store, registryDocumentStream(registryDocumentId), registryDocumentDecider, {
    type: 'ReceiveDocument',
    organizationId: input.organizationId,
    registryId: input.registryId,
    registryDocumentId,
    at: app.clock.now().toISOString(),
    document: registry.record.document,
    fileName: input.fileName,
    mimeType,
    sizeBytes: input.bytes.length,
    sha256: createHash('sha256').update(input.bytes).digest('hex'),
    blobId,
    expectedType: input.expectedType,
    source: input.source,
    ...(input.intake && { intake: true as const }),
    uploadedBy: input.actor,
  });
  return { registryDocumentId, position };
}
