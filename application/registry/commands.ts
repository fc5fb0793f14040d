import { parsePhoneNumberFromString } from 'libphonenumber-js';
import type { DocumentVerdict, ExpectedDocumentType } from '../../domain/collection/enums.ts';
import { registryDocumentDecider } from '../../domain/registry/document-decider.ts';
import { registryDocumentStream } from '../../domain/registry/document-events.ts';
import { registryDecider, type RegistryFields } from '../../domain/registry/decider.ts';
import { registryStream, type EntityType, type RegistryContact } from '../../domain/registry/events.ts';
import { RegistryMessages } from '../../domain/registry/messages.ts';
import { DomainError } from '../../domain/shared/errors.ts';
import type { Position } from '../../platform/eventstore/port.ts';
import { PostgresBlobStore, type StoredBlob } from '../blob-store.ts';
import { handleCommand } from '../command-handler.ts';
import type { AppContext } from '../context.ts';
import { actorOf, type Caller } from '../collection/actor.ts';
import { documentOf, registryIdOf } from './intake-commands.ts';

type App = Pick<AppContext, 'store' | 'clock' | 'db' | 'config'>;

/** Contacts as sent: absent fields read as null. */
export type ContactInput = { [K in keyof RegistryContact]?: RegistryContact[K] };
export type RegistryInput = Partial<Omit<RegistryFields, 'contacts'>> & { contacts?: ContactInput[] };

/** Phones are kept in E.164 (numbers without a country code are taken as Brazilian). */
function normalizedContacts(contacts: ContactInput[] | undefined): RegistryContact[] | undefined {
  return contacts?.map(({ name = null, email = null, phone = null }) => {
    if (!phone) return { name, email, phone: null };
    const parsed = parsePhoneNumberFromString(phone, 'BR');
    if (!parsed?.isValid()) throw new DomainError('invalid', RegistryMessages.invalidPhone(phone));
    return { name, email, phone: parsed.number };
  });
}

/** A new registry; 409 (with its id) when the organization already has one for that CPF/CNPJ. */
export async function createRegistry(
  app: App,
  caller: Caller,
  input: { document: string; entityType: EntityType; name: string } & RegistryInput,
): Promise<{ registryId: string; position: Position | null }> {
  const document = documentOf(input.document, input.entityType);
  const registryId = await registryIdOf(app, caller.organizationId, document);
  try {
    const { position } = await handleCommand(app.store, registryStream(registryId), registryDecider, {
      type: 'CreateRegistry',
      ifAbsent: false,
      organizationId: caller.organizationId,
      registryId,
      document,
      entityType: input.entityType,
      name: input.name,
      contacts: normalizedContacts(input.contacts) ?? [],
      basicData: input.basicData ?? {},
      ...actorOf(caller),
      at: app.clock.now().toISOString(),
    });
    return { registryId, position };
  } catch (error) {
    if (error instanceof DomainError && error.kind === 'conflict') throw new DomainError('conflict', error.message, { registryId });
    throw error;
  }
}

export async function updateRegistry(app: App, caller: Caller, registryId: string, changes: RegistryInput): Promise<Position | null> {
  const { position } = await handleCommand(app.store, registryStream(registryId), registryDecider, {
    type: 'UpdateRegistry',
    organizationId: caller.organizationId,
    registryId,
    changes: { ...changes, contacts: normalizedContacts(changes.contacts) },
    ...actorOf(caller),
    at: app.clock.now().toISOString(),
  });
  return position;
}

/**
 * The document must belong to that registry of the caller's organization: the decider checks the
 * organization (in the command), this the registry, so a document id under another registry's path is a 404.
 */
function onDocument(app: App, registryId: string, registryDocumentId: string, command: Parameters<typeof registryDocumentDecider.decide>[0]) {
  return handleCommand(
    app.store,
    registryDocumentStream(registryDocumentId),
    {
      ...registryDocumentDecider,
      decide: (c, state) => {
        if (state.received && state.received.registryId !== registryId) throw new DomainError('not_found', RegistryMessages.documentNotFound);
        return registryDocumentDecider.decide(c, state);
      },
    },
    command,
  );
}

/** Analyse again (attempt + 1), taking `forceType` as the type when given; the earlier opinion is replaced. */
export async function reprocessDocument(app: App, caller: Caller, registryId: string, registryDocumentId: string, forceType: ExpectedDocumentType | null): Promise<Position | null> {
  const at = app.clock.now().toISOString();
  return (await onDocument(app, registryId, registryDocumentId, { type: 'ReprocessDocument', organizationId: caller.organizationId, forceType, at })).position;
}

/** An operator's verdict against the automatic opinion. */
export async function decideDocument(
  app: App,
  caller: Caller,
  registryId: string,
  registryDocumentId: string,
  decision: { verdict: DocumentVerdict; comment: string | null },
): Promise<Position | null> {
  const command = { type: 'DecideDocument' as const, organizationId: caller.organizationId, ...decision, userId: caller.userId, at: app.clock.now().toISOString() };
  return (await onDocument(app, registryId, registryDocumentId, command)).position;
}

/** The file, fetched only by this explicit action, which is recorded (RegistryDocumentDownloaded). */
export async function downloadDocument(app: App, caller: Caller, registryId: string, registryDocumentId: string): Promise<StoredBlob> {
  const command = { type: 'DownloadDocument' as const, organizationId: caller.organizationId, userId: caller.userId, at: app.clock.now().toISOString() };
  const { state } = await onDocument(app, registryId, registryDocumentId, command);
  const blob = await new PostgresBlobStore(app.db).get(state.received!.blobId);
  if (!blob) throw new DomainError('not_found', RegistryMessages.fileMissing);
  return blob;
}
