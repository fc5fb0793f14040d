import { SignatureMessages } from '../../../domain/collection/messages.ts';
import { signatureProgress } from '../../../domain/collection/kinds/signature-progress.ts';
import type { SignatureParty } from '../../../domain/collection/kinds/signature.ts';
import type { CollectionState, ItemState, RecipientState } from '../../../domain/collection/state.ts';
import { escape } from '../recipient-html.ts';
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

const form = (action: string, fields: string, button: string, extra = '') =>
  `<form method="post" action="${action}"${extra}>${fields}<button type="submit">${escape(button)}</button></form>`;

/** The step the party is at, as HTML: identity, code, confirmation, signature. */
function partyStep(base: string, state: CollectionState, item: ItemState, recipient: RecipientState, party: SignatureParty, identityForm: string | null): string {
  const progress = signatureProgress(state, item);
  if (progress.config.ordered) {
    const waiting = progress.parties.find((p) => p.order < party.order && p.signedAt === null);
    if (waiting) {
      const name = state.recipients.find((r) => r.recipientId === waiting.recipientId)?.name || 'outra parte';
      return `<p class="aviso" data-step="waiting">${escape(SignatureMessages.awaitingTurn(name))}</p>`;
    }
  }
  if (identityForm !== null) return `<p data-step="identity">${escape(T.identityStep)}</p>${identityForm}`;
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

/**
 * A SIGNATURE item on the party's page: the document to read, then their step. `identityForm`
 * renders the identity check's upload for SIGNATURE_AND_IDENTITY (null: none needed now).
 */
export function signatureControls(input: { token: string; state: CollectionState; recipient: RecipientState; item: ItemState }, identityForm: (base: string) => string | null): string | null {
  const { token, state, recipient, item } = input;
  if (item.kind !== 'SIGNATURE' || !item.config?.signature) return null;
  const itemBase = `/c/${encodeURIComponent(token)}/items/${item.itemId}`;
  const base = `${itemBase}/signature`;
  const progress = signatureProgress(state, item);
  const party = progress.parties.find((p) => p.recipientId === recipient.recipientId);
  const document = `<p><a href="${itemBase}/document">${escape(T.viewDocument)}</a> · <a href="${itemBase}/document?download=1">${escape(T.downloadDocument)}</a></p>`;
  const summary = `<p data-progress>${escape(progress.text)}</p>`;
  let step: string;
  if (item.status === 'VALIDATED') step = `<p class="ok" data-step="done">${escape(T.done)}</p>`;
  else if (progress.pdfCopyAvailable) step = `<p class="analise" data-step="completed">${escape(T.allSigned)}</p>`;
  else if (!party) step = '';
  else if (party.signedAt) step = `<p class="ok" data-step="signed">${escape(T.signedByYou)}</p>`;
  else if (party.declinedAt && item.status !== 'REJECTED') step = `<p class="recusado" data-step="declined">${escape(T.declinedByYou)}</p>`;
  else if (item.status === 'AWAITING_OPERATOR' || item.status === 'MANUAL_REVIEW') step = `<p class="erro" data-step="stopped">${escape(SignatureMessages.declined)}</p>`;
  else {
    step = partyStep(base, state, item, recipient, party, identityForm(base)) +
      form(`${base}/decline`, `<label>${escape(T.declineLabel)}<input name="reason" maxlength="500" required></label>`, T.decline, ' class="recusar"');
  }
  return `<div class="assinatura" data-signature-item="${item.itemId}">${document}${summary}${step}</div>`;
}

export const signaturePage: ItemPage = {
  render: (input) => signatureControls(input, () => null),
};
