import { DomainError } from '../shared/errors.ts';
import { validateItemConfig } from './kinds/index.ts';
import { CollectionMessages } from './messages.ts';
import type { CollectionDefinition } from './definition.ts';

/** The rules of a definition that do not depend on lookups (the application resolved those). */
export function validateDefinition(definition: CollectionDefinition): void {
  if (definition.items.length === 0) throw new DomainError('invalid', CollectionMessages.noItems);
  if (definition.recipients.length === 0) throw new DomainError('invalid', CollectionMessages.noRecipients);
  const keys = new Set(definition.items.map((i) => i.key));
  if (keys.size !== definition.items.length) throw new DomainError('invalid', CollectionMessages.duplicateItemKey);
  definition.items.forEach(validateItemConfig);
  const itemIds = new Set(definition.items.map((i) => i.itemId));
  for (const recipient of definition.recipients) {
    if (!recipient.itemIds.every((id) => itemIds.has(id))) throw new DomainError('invalid', CollectionMessages.unknownItemKey);
    if (!recipient.email && !recipient.phone) throw new DomainError('invalid', CollectionMessages.recipientWithoutContact);
  }
}
