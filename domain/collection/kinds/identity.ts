import { DomainError } from '../../shared/errors.ts';
import type { CollectionCommand } from '../commands.ts';
import { entry, existing, itemOf, live, recipientOf, unresolved } from '../decide-kit.ts';
import type { ItemStatus, ResolutionMode } from '../enums.ts';
import { CollectionMessages, IdentityMessages } from '../messages.ts';
import { advance, isAwaitingRecipient, isClosed, isResolved, withItem, withRecipient, type CollectionState, type ItemState } from '../state.ts';
import type { CollectionKind } from './kind.ts';
import type { Provenance } from '../../shared/provenance.ts';

export type IdentityVerdict = 'APROVADO' | 'REPROVADO' | 'INCONCLUSIVO';

/**
 * The result of one identity check as the provider port returns it, without its raw payload.
 * IDENTITY items hold them, and so do SIGNATURE items with flow SIGNATURE_AND_IDENTITY (the
 * check a party passes before signing).
 */
export interface IdentityCheck {
  checkId: string;
  recipientId: string | null;
  provider: string;
  verdict: IdentityVerdict;
  /** 0 to 1: face of the document against the selfie. */
  similarity: number | null;
  /** 0 to 1: the selfie is of a live person. */
  liveness: number | null;
  /** Anti-fraud signals raised (codes); empty when none. */
  signals: string[];
  /** Stored image blob ids: only their count is ever shown. */
  imageCount: number;
  /** The sandbox provider gave it (its verdict is a marker in the image's metadata), not a real check. */
  sandbox?: true;
  /** Why the check resolved nothing: a sandbox check outside sandbox mode leaves the item to the operator. */
  heldForOperator?: string;
  completedAt: string;
}

/** A check's provenance: its event names the provider; before the sandbox flag, the sandbox provider was the only sandbox one. */
export const identityCheckProvenance = (check: IdentityCheck): Provenance => ({ provider: check.provider, sandbox: check.sandbox === true || check.provider === 'sandbox' });

/** A check whose images were received; its result may still be missing (the provider did not answer). */
export interface StartedIdentityCheck {
  checkId: string;
  recipientId: string | null;
  /** The person's images (personal data: never presented, only counted; viewing them is a trail entry). */
  imageBlobIds: string[];
  startedAt: string;
}

export interface IdentityItemState {
  checks: IdentityCheck[];
  started: StartedIdentityCheck[];
}

export interface IdentityPayloads {
  IdentityCheckStarted: { checkId: string; imageCount: number };
  IdentityCompleted: Omit<IdentityCheck, 'recipientId' | 'completedAt'>;
  /** An operator looked at a check's images: recorded in the trail, never a webhook. */
  IdentityImagesViewed: { checkId: string };
}

export interface IdentityExtras {
  IdentityCheckStarted: { imageBlobIds: string[] };
}

export type IdentityCommand =
  | { type: 'StartIdentityCheck'; itemId: string; recipientId: string | null; checkId: string; imageBlobIds: string[] }
  /** `deployment`: config DEPLOYMENT; outside sandbox a sandbox check resolves nothing. */
  | { type: 'RecordIdentityResult'; itemId: string; recipientId: string | null; check: Omit<IdentityCheck, 'recipientId' | 'completedAt' | 'heldForOperator'>; deployment: 'sandbox' | 'production' }
  | { type: 'RecordIdentityImagesViewed'; itemId: string; checkId: string };

/** Liveness at or above this reads as "prova de vida aprovada" in the evaluation. */
export const LIVENESS_PASS = 0.5;

/** Portuguese texts of the anti-fraud signal codes the adapters raise (an unknown code is shown as it is). */
export const IDENTITY_SIGNAL_TEXTS: Record<string, string> = {
  IMAGENS_IGUAIS: 'a selfie é a mesma imagem do documento',
  ROSTO_NAO_ENCONTRADO_DOCUMENTO: 'nenhum rosto encontrado na foto do documento',
  ROSTO_NAO_ENCONTRADO_SELFIE: 'nenhum rosto encontrado na selfie',
  VARIOS_ROSTOS_SELFIE: 'mais de um rosto na selfie',
  FOTO_DE_TELA: 'a selfie parece ser a foto de uma tela',
  DOCUMENTO_ADULTERADO: 'o documento tem sinais de adulteração',
  IMAGEM_RECUSADA: 'o provedor recusou a imagem (formato, tamanho ou qualidade)',
};

const percent = (value: number) => `${Math.round(value * 100)}%`;

/** The Portuguese evaluation of a check shown on the item ("Identidade confirmada: semelhança 97%, prova de vida aprovada"). */
export function identityEvaluation(check: Pick<IdentityCheck, 'verdict' | 'similarity' | 'liveness' | 'signals'>): string {
  const head = { APROVADO: 'Identidade confirmada', REPROVADO: 'Identidade não confirmada', INCONCLUSIVO: 'Verificação inconclusiva, segue para análise do operador' }[check.verdict];
  const parts = [
    check.similarity === null ? 'semelhança não avaliada' : `semelhança ${percent(check.similarity)}`,
    check.liveness === null ? 'prova de vida não avaliada' : `prova de vida ${check.liveness >= LIVENESS_PASS ? 'aprovada' : 'reprovada'}`,
  ];
  const signals = check.signals.length ? `; sinais: ${check.signals.map((s) => IDENTITY_SIGNAL_TEXTS[s] ?? s).join('; ')}` : '';
  return `${head}: ${parts.join(', ')}${signals}`;
}

/**
 * A CPF or CNPJ as the identity validation listing shows it, always masked: the middle digits only
 * (`***.456.789-**`, `**.222.333/****-**`); anything else (an erased `***`) shows no digit.
 */
export function maskDocument(document: string): string {
  const d = document.replace(/\D/g, '');
  if (d.length === 11) return `***.${d.slice(3, 6)}.${d.slice(6, 9)}-**`;
  if (d.length === 14) return `**.${d.slice(2, 5)}.${d.slice(5, 8)}/****-**`;
  return '***';
}

/** Where a result leaves an IDENTITY item: REVIEW mode hands every result to the operator, as for files. */
function statusAfterCheck(mode: ResolutionMode, verdict: IdentityVerdict): ItemStatus {
  if (mode === 'REVIEW') return 'AWAITING_OPERATOR';
  return verdict === 'APROVADO' ? 'VALIDATED' : verdict === 'REPROVADO' ? 'REJECTED' : 'MANUAL_REVIEW';
}

/** The items a check belongs to: IDENTITY, and SIGNATURE with flow SIGNATURE_AND_IDENTITY. */
export const takesIdentityCheck = (item: Pick<ItemState, 'kind' | 'config'>) => item.kind === 'IDENTITY' || (item.kind === 'SIGNATURE' && item.config?.signature?.flow === 'SIGNATURE_AND_IDENTITY');

function checkTarget(state: CollectionState, itemId: string): ItemState {
  const item = itemOf(state, itemId);
  if (!takesIdentityCheck(item)) throw new DomainError('invalid', IdentityMessages.notAnIdentityItem);
  return item;
}

const identityOf = (item: ItemState): IdentityItemState => item.details.identity ?? { checks: [], started: [] };
const withIdentity = (state: CollectionState, itemId: string | null, change: (identity: IdentityItemState, item: ItemState) => Partial<ItemState> & { identity: IdentityItemState }) =>
  withItem(state, itemId, (item) => {
    const { identity, ...rest } = change(identityOf(item), item);
    return { ...item, ...rest, details: { ...item.details, identity } };
  });

type Command<T extends IdentityCommand['type']> = CollectionCommand & { type: T };

function start(command: Command<'StartIdentityCheck'>, state: CollectionState) {
  const collectionId = live(state, command.organizationId);
  const item = unresolved(checkTarget(state, command.itemId));
  if (command.recipientId !== null && !recipientOf(state, command.recipientId).itemIds.includes(item.itemId)) {
    throw new DomainError('not_found', CollectionMessages.itemNotOfRecipient);
  }
  if (identityOf(item).started.some((s) => s.checkId === command.checkId)) return [];
  // An IDENTITY item under analysis by the operator (MANUAL_REVIEW, AWAITING_OPERATOR) takes no new check.
  if (item.kind === 'IDENTITY' && !isAwaitingRecipient(item)) throw new DomainError('conflict', IdentityMessages.notAwaitingCheck);
  if (command.imageBlobIds.length === 0) throw new DomainError('invalid', IdentityMessages.imagesRequired);
  const where = { itemId: item.itemId, recipientId: command.recipientId };
  return [entry('IdentityCheckStarted', command, collectionId, where, { checkId: command.checkId, imageCount: command.imageBlobIds.length }, { imageBlobIds: command.imageBlobIds })];
}

/** Why a sandbox check outside sandbox mode leaves its IDENTITY item to the operator (recorded on IDENTITY_COMPLETED). */
export const SANDBOX_CHECK_HELD = 'Verificação do provedor de sandbox (veredito lido de um marcador da imagem), que fora do modo sandbox não resolve o item: aguarda o operador.';

function record(command: Command<'RecordIdentityResult'>, state: CollectionState, complete: Parameters<CollectionKind['decide']>[2]) {
  // A collection closed while the provider answered keeps what it had.
  if (isClosed(state)) return [];
  const collectionId = live(state, command.organizationId);
  const item = checkTarget(state, command.itemId);
  const identity = identityOf(item);
  if (!identity.started.some((s) => s.checkId === command.check.checkId)) throw new DomainError('not_found', IdentityMessages.checkNotFound);
  if (identity.checks.some((c) => c.checkId === command.check.checkId)) return [];
  // A verdict read from a marker in the image proves no one: outside sandbox mode the operator decides.
  // A SIGNATURE_AND_IDENTITY party's held check does not let them sign (passedIdentity).
  const held = command.check.sandbox === true && command.deployment !== 'sandbox';
  const check = held ? { ...command.check, heldForOperator: SANDBOX_CHECK_HELD } : command.check;
  return complete(command, state, [entry('IdentityCompleted', command, collectionId, { itemId: item.itemId, recipientId: command.recipientId }, check)]);
}

function viewed(command: Command<'RecordIdentityImagesViewed'>, state: CollectionState) {
  // Reading the images of a closed collection is still an audit fact: only the tenant is checked.
  const collectionId = existing(state, command.organizationId);
  const item = checkTarget(state, command.itemId);
  if (!identityOf(item).started.some((s) => s.checkId === command.checkId)) throw new DomainError('not_found', IdentityMessages.checkNotFound);
  return [entry('IdentityImagesViewed', command, collectionId, { itemId: item.itemId }, { checkId: command.checkId })];
}

export const identityKind: CollectionKind = {
  decide(command, state, complete) {
    if (command.type === 'StartIdentityCheck') return start(command, state);
    if (command.type === 'RecordIdentityResult') return record(command, state, complete);
    if (command.type === 'RecordIdentityImagesViewed') return viewed(command, state);
    return null;
  },
  evolve(state, event) {
    const { data } = event;
    const at = data.occurredAt;
    if (event.type === 'IdentityCheckStarted') {
      const started: StartedIdentityCheck = { checkId: event.data.payload.checkId, recipientId: data.recipientId, imageBlobIds: event.data.imageBlobIds, startedAt: at };
      // Images received count like a file: the collection and the recipient are in progress.
      const next = withIdentity(state, data.itemId, (identity) => ({ identity: { ...identity, started: [...identity.started, started] } }));
      return withRecipient({ ...next, status: next.status === 'SENT' ? 'IN_PROGRESS' : next.status }, data.recipientId, (r) => ({ ...r, activity: advance(r.activity, 'IN_PROGRESS') }));
    }
    if (event.type === 'IdentityCompleted') {
      const check: IdentityCheck = { ...event.data.payload, recipientId: data.recipientId, completedAt: at };
      return withIdentity(state, data.itemId, (identity, item) => {
        const next = { identity: { ...identity, checks: [...identity.checks, check] } };
        // A SIGNATURE item keeps the check for its signing step; an IDENTITY item is decided by it.
        if (item.kind !== 'IDENTITY' || isResolved(item)) return next;
        const status = check.heldForOperator ? 'AWAITING_OPERATOR' : statusAfterCheck(state.mode, check.verdict);
        return {
          ...next,
          status,
          resolvedAt: isResolved({ status }) ? at : item.resolvedAt,
          resendReason: status === 'REJECTED' ? identityEvaluation(check) : null,
        };
      });
    }
    if (event.type === 'IdentityImagesViewed') return state;
    return null;
  },
  // An IDENTITY item asks nothing beyond title and instructions: there is no identity config to check.
  validateItem: () => undefined,
  // Identity checks are what the kyc module sells (kycEnabled).
  requiredModule: (item) => (item.kind === 'IDENTITY' ? 'kyc' : null),
};
