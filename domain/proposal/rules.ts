import type { Product } from '../catalog/product.ts';
import type { EntityType } from '../pricing/terms.ts';
import { DOCUMENT_LENGTH, parseDocument, stripMask, type DocumentType } from '../shared/document.ts';
import { DomainError } from '../shared/errors.ts';
import { Messages } from '../shared/messages.ts';
import { ProposalMessages } from './messages.ts';

/** A document sent without its type: 11 digits are a CPF (a person), 14 a CNPJ (a company). */
export function documentOf(text: string): { digits: string; entityType: EntityType } {
  const digits = stripMask(text);
  const type: DocumentType = digits.length === DOCUMENT_LENGTH.cnpj ? 'cnpj' : 'cpf';
  if (digits.length !== DOCUMENT_LENGTH.cpf && digits.length !== DOCUMENT_LENGTH.cnpj) throw new DomainError('invalid', Messages.invalidDocument);
  return { digits: parseDocument(digits, type).digits, entityType: type === 'cpf' ? 'PERSON' : 'COMPANY' };
}

/** A value inside [min, max] (either end may be open), else a 400 naming the limit it broke. */
export function within(value: number, min: number | null, max: number | null, below: (n: number) => string, above: (n: number) => string): void {
  if (min !== null && value < min) throw new DomainError('invalid', below(min));
  if (max !== null && value > max) throw new DomainError('invalid', above(max));
}

/** The product serves the entity type and the request fits its limits (a fixed-amount product ignores the amount). */
export function checkRequest(product: Product | null, entityType: EntityType, amountCents: number | null, termMonths: number | null): void {
  if (!product || !product.enabled || !product.entityTypes.includes(entityType)) throw new DomainError('invalid', Messages.invalidProduct);
  if (product.fixedAmountCents === null) {
    if (amountCents === null) throw new DomainError('invalid', ProposalMessages.amountRequired);
    within(amountCents, product.minAmountCents, product.maxAmountCents, ProposalMessages.amountBelow, ProposalMessages.amountAbove);
  }
  if (termMonths !== null) within(termMonths, product.minTermMonths, product.maxTermMonths, ProposalMessages.termBelow, ProposalMessages.termAbove);
}
