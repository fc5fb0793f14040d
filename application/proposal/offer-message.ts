import type { IndicativeTerms } from '../../domain/proposal/events.ts';
import type { ProposalState } from '../../domain/proposal/state.ts';
import type { Config } from '../../config/index.ts';
import { organizationName } from '../../projections/identity/queries.ts';
import type { AppContext } from '../context.ts';
import { planChannels, type ChannelPlan } from '../messaging/channel-order.ts';
import { queueMessage } from '../messaging/commands.ts';
import { organizationChannelOrder } from '../messaging/settings-commands.ts';
import type { MessageChannel } from '../../domain/messaging/events.ts';

/** The customer's offer page for a link token (served by http/proposal/offer-page.ts). */
export const offerUrl = (app: Pick<AppContext, 'config'>, token: string) => `${app.config.PUBLIC_BASE_URL.replace(/(?<!\/)\/+$/, '')}/oferta/${token}`;

/**
 * The proposal's channels: those its contact has an address for (e-mail; WhatsApp and SMS for a
 * phone), in the organization's channel order (else the deployment's MESSAGE_CHANNEL_ORDER), one at a time: the first, then the next when
 * one gives up. No contact, or one without an address: none, and the integrator delivers the link
 * the route returned (as a collection whose channel is NONE).
 */
export function offerChannels(config: Pick<Config, 'MESSAGE_CHANNEL_ORDER' | 'SMS_PROVIDER'>, state: ProposalState, organizationOrder: readonly MessageChannel[] | null): ChannelPlan {
  const contact = state.created?.contact;
  if (!contact?.email && !contact?.phone) return { channels: [] };
  return planChannels(config, [['WHATSAPP', 'SMS', 'EMAIL']], { email: contact.email ?? null, phone: contact.phone ?? null }, { recipient: contact.channelOrder, organization: organizationOrder });
}

/**
 * Send an indicative offer's link to the proposal's contact through the messaging module (its
 * events, retries and outcome like any message). One message per link: the key names the link's
 * hash, so a resend (a new link) is a new message and a repeated call for the same link queues
 * nothing. Returns the message id, or null when the proposal has no channel.
 */
export async function sendOfferLink(app: Pick<AppContext, 'store' | 'clock' | 'db' | 'config'>, state: ProposalState, offerId: string, link: { token: string; hash: string }): Promise<string | null> {
  const created = state.created;
  const offer = state.offers.find((o) => o.offerId === offerId);
  if (!created || !offer) return null;
  const plan = offerChannels(app.config, state, await organizationChannelOrder(app, created.organizationId));
  if (plan.channels.length === 0) return null;
  const terms = offer.terms as IndicativeTerms;
  const { messageId } = await queueMessage(app, {
    organizationId: created.organizationId,
    dedupeKey: `offer:${created.proposalId}:${offerId}:${link.hash}`,
    template: 'OFFER_LINK',
    ...plan,
    to: { name: created.contact?.name ?? created.name, email: created.contact?.email ?? null, phone: created.contact?.phone ?? null },
    correlation: { proposalId: created.proposalId, offerId },
    content: {
      link: offerUrl(app, link.token),
      subjectName: created.name,
      organizationName: (await organizationName(app.db, created.organizationId)) ?? '',
      operatorMessage: null,
      pendingItems: [],
      expiresAt: terms.validUntil,
      offer: { productName: created.productName, maxAmountCents: terms.maxAmountCents, maxTermMonths: terms.maxTermMonths },
    },
  });
  return messageId;
}
