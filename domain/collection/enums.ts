/** The enumerations of a collection's detail, spelled as the contract lists them. */

/**
 * Where a collection came from when not from an operator or an integrator: PUBLIC_FORM, opened by
 * an anonymous visitor on a template's public form (docs/public-form.md).
 */
export const COLLECTION_ORIGINS = ['PUBLIC_FORM'] as const;
export type CollectionOrigin = (typeof COLLECTION_ORIGINS)[number];

/**
 * A public-form collection is an intake. UNLINKED: the registry of its document existed before it,
 * so what the visitor sends stays apart until an operator links it; LINKED: an operator did;
 * SELF_DECLARED: the intake created the registry, which holds only what the visitor declared.
 */
export const INTAKE_STATUSES = ['UNLINKED', 'LINKED', 'SELF_DECLARED'] as const;
export type IntakeStatus = (typeof INTAKE_STATUSES)[number];

export const COLLECTION_STATUSES = ['DRAFT', 'SENT', 'IN_PROGRESS', 'COMPLETED', 'EXPIRED', 'CANCELED'] as const;
export type CollectionStatus = (typeof COLLECTION_STATUSES)[number];
/** A closed collection takes no more actions: cancel answers 409, links stop working, no reminder leaves. */
export const CLOSED_COLLECTION_STATUSES: readonly CollectionStatus[] = ['COMPLETED', 'EXPIRED', 'CANCELED'];

export const RESOLUTION_MODES = ['AUTOMATIC', 'REVIEW'] as const;
export type ResolutionMode = (typeof RESOLUTION_MODES)[number];

/** NONE: the platform notifies nobody; the caller delivers the link itself. */
export const NOTIFICATION_CHANNELS = ['WHATSAPP', 'EMAIL', 'BOTH', 'NONE'] as const;
export type NotificationChannel = (typeof NOTIFICATION_CHANNELS)[number];

export const ITEM_KINDS = ['DOCUMENT', 'IDENTITY', 'CONSENT', 'SIGNATURE', 'FORM', 'CUSTOM'] as const;
export type ItemKind = (typeof ITEM_KINDS)[number];

export const EXPECTED_DOCUMENT_TYPES = [
  'CONTRATO_SOCIAL',
  'ALTERACAO_CONTRATUAL',
  'ESTATUTO_SOCIAL',
  'REQUERIMENTO_EMPRESARIO',
  'ATA_ASSEMBLEIA',
  'PROCURACAO_PJ',
  'CERTIDAO_JUNTA',
  'CERTIDAO_QSA',
  'IRPJ_ECF',
  'DECLARACAO_FATURAMENTO',
  'CERTIFICADO_SIMPLES_NACIONAL',
  'DEMONSTRACOES_FINANCEIRAS',
  'EXTRATO_BANCARIO',
  'CERTIDAO_PGFN_PJ',
  'CERTIDAO_FGTS',
  'CADIN_FEDERAL',
  'CADIN_ESTADUAL',
  'ESOCIAL_PJ',
  'DOC_IDENTIDADE',
  'COMPROVANTE_RESIDENCIA',
  'DIRPF',
  'COMPROVANTE_RENDA',
  'CERTIDAO_PF',
  'PROCURACAO_PF',
  'COMPROVACAO_ESTADO_CIVIL',
  'FORA_DE_ESCOPO',
  'NAO_IDENTIFICADO',
] as const;
export type ExpectedDocumentType = (typeof EXPECTED_DOCUMENT_TYPES)[number];

export const ITEM_STATUSES = ['PENDING', 'ALREADY_ON_FILE', 'SUBMITTED', 'PROCESSING', 'VALIDATED', 'REJECTED', 'MANUAL_REVIEW', 'AWAITING_OPERATOR', 'WAIVED', 'EXPIRED'] as const;
export type ItemStatus = (typeof ITEM_STATUSES)[number];
/** Items that count as resolved for completion. */
export const RESOLVED_ITEM_STATUSES: readonly ItemStatus[] = ['ALREADY_ON_FILE', 'VALIDATED', 'WAIVED'];
/** Items waiting for a human decision (the operator queue). */
export const OPERATOR_ITEM_STATUSES: readonly ItemStatus[] = ['AWAITING_OPERATOR', 'MANUAL_REVIEW'];

export const DOCUMENT_VERDICTS = ['VALIDO', 'INVALIDO', 'INCONCLUSIVO', 'ANALISE_MANUAL'] as const;
export type DocumentVerdict = (typeof DOCUMENT_VERDICTS)[number];

export const SIGNATURE_MODES = ['INDIVIDUAL', 'JOINT'] as const;
export type SignatureMode = (typeof SIGNATURE_MODES)[number];
export const SIGNATURE_FLOWS = ['SIGNATURE', 'SIGNATURE_AND_IDENTITY'] as const;
export type SignatureFlow = (typeof SIGNATURE_FLOWS)[number];

export const REUSE_DECISIONS = ['APPROVED', 'RESEND_REQUESTED', 'WAIVED'] as const;
export type ReuseDecision = (typeof REUSE_DECISIONS)[number];

export const RECIPIENT_STATUSES = ['PENDING', 'DELIVERED', 'OPENED', 'IN_PROGRESS', 'COMPLETED', 'FAILED', 'NO_ITEMS'] as const;
export type RecipientStatus = (typeof RECIPIENT_STATUSES)[number];

export const MESSAGE_STATUSES = ['PENDING', 'SENT', 'DELIVERED', 'FAILED', 'NOT_SENT'] as const;
export type MessageStatus = (typeof MESSAGE_STATUSES)[number];

export const ACTOR_TYPES = ['USER', 'API_USER', 'RECIPIENT', 'SYSTEM'] as const;
export type ActorType = (typeof ACTOR_TYPES)[number];

/** PJ: company (CNPJ); PF: person (CPF). An item without appliesTo applies to both. */
export type AppliesTo = 'PJ' | 'PF';
