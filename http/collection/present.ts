import { OPERATOR_ITEM_STATUSES } from '../../domain/collection/enums.ts';
import { isResolved, type CollectionState, type ItemState } from '../../domain/collection/state.ts';
import { documentOpinionProvenance } from '../../domain/registry/document-events.ts';
import { presentItemDetails } from './kinds/index.ts';

export function presentItem(state: CollectionState, item: ItemState) {
  return {
    id: item.itemId,
    key: item.key,
    kind: item.kind,
    title: item.title,
    expectedType: item.expectedType,
    required: item.required,
    instructions: item.instructions,
    status: item.status,
    reuseDecision: item.reuse?.decision ?? null,
    reusedDocumentId: item.reuse?.registryDocumentId ?? null,
    resendReason: item.resendReason,
    resolvedAt: item.resolvedAt,
    recipientIds: state.recipients.filter((r) => r.itemIds.includes(item.itemId)).map((r) => r.recipientId),
    opinions: item.files.map((f) => ({
      registryDocumentId: f.registryDocumentId,
      recipientId: f.recipientId,
      submittedAt: f.submittedAt,
      type: f.opinion?.type ?? null,
      verdict: f.opinion?.verdict ?? null,
      score: f.opinion?.score ?? null,
      reason: f.opinion?.reason ?? null,
      attempt: f.opinion?.attempt ?? null,
      sandbox: f.opinion?.sandbox === true,
      provenance: f.opinion ? documentOpinionProvenance(f.opinion) : null,
    })),
    config: item.config ?? {},
    details: presentItemDetails(state, item),
  };
}

export function presentSummary(state: CollectionState) {
  return {
    id: state.collectionId!,
    registryId: state.registryId,
    templateSlug: state.template?.slug ?? null,
    templateName: state.template?.name ?? null,
    templateVersion: state.template?.version ?? null,
    // Rows folded before intakes existed have neither field.
    origin: state.origin ?? null,
    status: state.status,
    canceledAt: state.canceledAt,
    subjectName: state.subject.name,
    subjectDocument: state.subject.document,
    entityType: state.subject.entityType,
    itemsTotal: state.items.length,
    itemsResolved: state.items.filter(isResolved).length,
    itemsAwaitingOperator: state.items.filter((i) => OPERATOR_ITEM_STATUSES.includes(i.status)).length,
    createdAt: state.createdAt!,
    sentAt: state.sentAt,
    expiresAt: state.expiresAt,
    completedAt: state.completedAt,
    expiredAt: state.expiredAt,
  };
}

/** The detail: the collection's own state, plus what other modules know (registry summary, trail). */
export function presentDetail(state: CollectionState, registry: object | null, trail: readonly object[]) {
  return {
    ...presentSummary(state),
    cancelReason: state.cancelReason,
    message: state.message,
    expiryDays: state.expiryDays,
    behavior: { resolutionMode: state.mode, notificationChannel: state.channel, reminderDays: state.reminderDays, onCompleted: { kind: state.onCompleted.kind, id: state.onCompleted.id } },
    registry,
    intake: state.intake ?? null,
    items: state.items.map((item) => presentItem(state, item)),
    recipients: state.recipients.map((r) => ({
      id: r.recipientId,
      name: r.name,
      email: r.email,
      phone: r.phone,
      status: r.status,
      itemIds: r.itemIds,
      linkVersion: r.linkVersion,
      openedAt: r.openedAt,
      lastNotifiedAt: r.lastNotifiedAt,
      reminders: r.reminders,
      channelOrder: r.channelOrder ?? null,
    })),
    trail,
  };
}
