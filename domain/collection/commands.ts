import type { MessageChannel } from '../messaging/events.ts';
import type { CollectionDefinition, RecipientDefinition } from './definition.ts';
import type { ActorType, DocumentVerdict, ExpectedDocumentType, IntakeStatus } from './enums.ts';
import type { ConsentCommand } from './kinds/consent.ts';
import type { FormCommand } from './kinds/form.ts';
import type { IdentityCommand } from './kinds/identity.ts';
import type { SignatureCommand } from './kinds/signature.ts';
import type { SignedDocumentCommand } from './kinds/signed-document.ts';
import type { Provenance, ReadProvenance } from '../shared/provenance.ts';

/**
 * Where a recipient's request came from, as evidence: the client address as the service's proxy
 * rule (TRUST_PROXY) reads it, and what that reading rests on, as received: the connection's peer
 * and the X-Forwarded-For header (null without one). Evidence recorded before the last two existed
 * has only `ip`.
 */
export interface ClientOrigin {
  ip: string | null;
  socketAddress?: string | null;
  forwardedFor?: string | null;
}

export interface Actor {
  actorType: ActorType;
  actorId: string | null;
}

/** What every command carries: whose collection, who acts, when (the domain has no clock). */
interface Base {
  organizationId: string;
  actor: Actor;
  at: string;
}

/** The analysis outcome of one file, as the registry's document events report it. */
export interface FileOpinion {
  registryDocumentId: string;
  attempt: number;
  type: ExpectedDocumentType | null;
  /** null: the analysis failed technically (no opinion). */
  verdict: DocumentVerdict | null;
  score: number | null;
  reason: string | null;
  /** The opinion came from sandbox rules (the offline keyword analyser), not from a real check. */
  sandbox?: true;
  /** Who gave it (the analyser, or the operator) and whether it is a sandbox result; absent: recorded before provenance was. */
  provenance?: Provenance;
}

export type CollectionCommand =
  /** `intake`: opened by a public form, UNLINKED (the registry existed) or SELF_DECLARED (the intake created it). */
  | (Base & { type: 'CreateCollection'; collectionId: string; definition: CollectionDefinition; send: boolean; intake?: Exclude<IntakeStatus, 'LINKED'> })
  | (Base & { type: 'SendCollection' })
  | (Base & { type: 'CancelCollection'; reason: string | null })
  | (Base & { type: 'AddRecipient'; recipient: RecipientDefinition })
  | (Base & { type: 'ReissueLink'; recipientId: string; linkHash: string })
  | (Base & { type: 'RecordRecipientOpened'; recipientId: string })
  | (Base & { type: 'SubmitItemDocument'; itemId: string; recipientId: string | null; registryDocumentId: string })
  | (Base & { type: 'StartItemProcessing'; itemId: string; registryDocumentId: string })
  /** `deployment`: config DEPLOYMENT; outside sandbox a sandbox opinion resolves nothing. */
  | (Base & { type: 'AssessItem'; itemId: string; opinion: FileOpinion; deployment: 'sandbox' | 'production' })
  /** An operator's decision on the registry document overriding the automatic opinion. */
  | (Base & { type: 'DecideItemDocument'; itemId: string; opinion: FileOpinion & { verdict: DocumentVerdict } })
  | (Base & { type: 'ReviewItem'; itemId: string; decision: 'APPROVE' | 'REJECT'; reason: string | null })
  | (Base & { type: 'WaiveItem'; itemId: string; reason: string | null })
  | (Base & { type: 'RecordRecipientNotified'; recipientId: string; messageId: string; channel: MessageChannel; reminder: boolean; provenance: ReadProvenance })
  | (Base & { type: 'RecordMessageFailed'; recipientId: string; messageId: string; error: string; notSent?: boolean; provenance?: ReadProvenance })
  | (Base & { type: 'RecordMessageChannelFailed'; recipientId: string; messageId: string; channel: MessageChannel; error: string; next: MessageChannel | null })
  | (Base & { type: 'ExpireCollection' })
  /** An operator of the organization vouches that an UNLINKED intake is about its registry's person: its answers reach the registry. */
  | (Base & { type: 'LinkIntake' })
  | (Base & (FormCommand | ConsentCommand | IdentityCommand | SignatureCommand | SignedDocumentCommand));
