import { SignatureMessages } from '../../../domain/collection/messages.ts';
import { identityEvaluation } from '../../../domain/collection/kinds/identity.ts';
import { passedIdentity } from '../../../domain/collection/kinds/signature-parties.ts';
import { signatureProgress } from '../../../domain/collection/kinds/signature-progress.ts';
import type { SignatureParty } from '../../../domain/collection/kinds/signature.ts';
import type { CollectionState, ItemState, RecipientState } from '../../../domain/collection/state.ts';
import { escape } from '../../../domain/shared/html.ts';
import { identityForm } from './identity.ts';
import type { ItemPage } from './page.ts';

/** Texts of the signature controls on the recipient page. */
export const SignaturePageTexts = {
  viewDocument: 'Ver o documento (PDF)',
  downloadDocument: 'Baixar o documento',
  signedByYou: 'Você já assinou este documento.',
  allSigned: 'Todas as partes assinaram. A cópia assinada está sendo gerada.',
  done: 'Documento assinado por todas as partes.',
  declinedByYou: 'Você recusou a assinatura. Quem enviou a solicitação foi avisado.',
  identityStep: 'Passo 1: confirme sua identidade com uma foto do documento e uma selfie.',
  codeStep: 'Confirme seu contato: enviaremos um código de 6 dígitos.',
  codeByEmail: 'Receber código por e-mail',
  codeByPhone: 'Receber código por WhatsApp',
  codeSent: (where: string) => `Enviamos um código para ${where}. Ele vale por 10 minutos.`,
  codeLabel: 'Código recebido',
  confirm: 'Confirmar código',
  signStep: 'Contato confirmado. Ao clicar em Assinar, você assina eletronicamente o documento acima.',
  sign: 'Assinar',
  declineLabel: 'Não concorda? Informe o motivo',
  decline: 'Recusar',
} as const;
const T = SignaturePageTexts;

/** j***@example.com, +55 11 *****-8888: enough for the person to know where to look. */
function masked(recipient: RecipientState, channel: 'EMAIL' | 'PHONE'): string {
  if (channel === 'EMAIL') {
    const [user = '', domain = ''] = (recipient.email ?? '').split('@');
    return `${user.slice(0, 1)}***@${domain}`;
  }
  const phone = recipient.phone ?? '';
  return `WhatsApp terminado em ${phone.slice(-4)}`;
}

const form = (action: string, fields: string, button: string, extra = '') => `<form method="post" action="${action}"${extra}>${fields}<button type="submit">${escape(button)}</button></form>`;

/** SIGNATURE_AND_IDENTITY before an approved check: the identity form, with why the last check failed. */
function identityStep(token: string, item: ItemState, party: SignatureParty): string | null {
  if (item.config?.signature?.flow !== 'SIGNATURE_AND_IDENTITY' || passedIdentity(item, party.recipientId)) return null;
  const last = item.details.identity?.checks.filter((c) => c.recipientId === party.recipientId).at(-1);
  const why = last ? `<p class="erro">${escape(last.heldForOperator ?? identityEvaluation(last))}</p>` : '';
  return `<p data-step="identity">${escape(T.identityStep)}</p>${why}${identityForm(token, item.itemId)}`;
}

/** The step the party is at, as HTML: identity, code, confirmation, signature. */
function partyStep(token: string, base: string, state: CollectionState, item: ItemState, recipient: RecipientState, party: SignatureParty): string {
  const progress = signatureProgress(state, item);
  if (progress.config.ordered) {
    const waiting = progress.parties.find((p) => p.order < party.order && p.signedAt === null);
    if (waiting) {
      const name = state.recipients.find((r) => r.recipientId === waiting.recipientId)?.name || 'outra parte';
      return `<p class="aviso" data-step="waiting">${escape(SignatureMessages.awaitingTurn(name))}</p>`;
    }
  }
  const identity = identityStep(token, item, party);
  if (identity !== null) return identity;
  if (party.verifiedAt === null) {
    const code = progress.signature.codes.find((c) => c.recipientId === party.recipientId);
    const ask = [
      recipient.email ? form(`${base}/code`, '<input type="hidden" name="channel" value="EMAIL">', T.codeByEmail) : '',
      recipient.phone ? form(`${base}/code`, '<input type="hidden" name="channel" value="PHONE">', T.codeByPhone) : '',
    ].join('');
    const confirm = code
      ? `<p class="aviso">${escape(T.codeSent(masked(recipient, code.channel)))}</p>` +
        form(`${base}/verify`, `<label>${escape(T.codeLabel)}<input name="code" inputmode="numeric" pattern="[0-9]{6}" maxlength="6" autocomplete="one-time-code" required></label>`, T.confirm)
      : '';
    return `<p data-step="code">${escape(T.codeStep)}</p>${confirm}${ask}`;
  }
  return `<p data-step="sign">${escape(T.signStep)}</p>${form(`${base}/sign`, '', T.sign)}`;
}

/** Where the item stands for this person: done, waiting for the copy, signed, declined, stopped, or their next step. */
function stepFor(token: string, state: CollectionState, recipient: RecipientState, item: ItemState): string {
  const base = `/c/${encodeURIComponent(token)}/items/${item.itemId}/signature`;
  const progress = signatureProgress(state, item);
  const party = progress.parties.find((p) => p.recipientId === recipient.recipientId);
  if (item.status === 'VALIDATED') return `<p class="ok" data-step="done">${escape(T.done)}</p>`;
  if (progress.pdfCopyAvailable) return `<p class="analise" data-step="completed">${escape(T.allSigned)}</p>`;
  if (!party) return '';
  if (party.signedAt) return `<p class="ok" data-step="signed">${escape(T.signedByYou)}</p>`;
  // After a decline the operator decides; a REJECT (ask again) lets every party act again.
  if (party.declinedAt && item.status !== 'REJECTED') return `<p class="recusado" data-step="declined">${escape(T.declinedByYou)}</p>`;
  if (item.status === 'AWAITING_OPERATOR' || item.status === 'MANUAL_REVIEW') return `<p class="erro" data-step="stopped">${escape(SignatureMessages.declined)}</p>`;
  return (
    partyStep(token, base, state, item, recipient, party) +
    form(`${base}/decline`, `<label>${escape(T.declineLabel)}<input name="reason" maxlength="500" required></label>`, T.decline, ' class="recusar"')
  );
}

/** A SIGNATURE item on the party's page: the document to read, the progress, then their step. */
export const signaturePage: ItemPage = {
  render({ token, state, recipient, item }) {
    if (item.kind !== 'SIGNATURE' || !item.config?.signature) return null;
    const documentUrl = `/c/${encodeURIComponent(token)}/items/${item.itemId}/document`;
    const document = `<p><a href="${documentUrl}">${escape(T.viewDocument)}</a> · <a href="${documentUrl}?download=1">${escape(T.downloadDocument)}</a></p>`;
    const summary = `<p data-progress>${escape(signatureProgress(state, item).text)}</p>`;
    return `<div class="assinatura" data-signature-item="${item.itemId}">${document}${summary}${stepFor(token, state, recipient, item)}</div>`;
  },
};
