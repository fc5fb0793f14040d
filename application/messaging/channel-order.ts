import type { Config } from '../../config/index.ts';
import type { ChannelFallback, MessageAddressee, MessageChannel } from '../../domain/messaging/events.ts';

type Addresses = Pick<MessageAddressee, 'email' | 'phone'>;

const BY_NAME: Record<string, MessageChannel> = { whatsapp: 'WHATSAPP', sms: 'SMS', email: 'EMAIL' };
const DEFAULT_ORDER: readonly MessageChannel[] = ['WHATSAPP', 'SMS', 'EMAIL'];

/** MESSAGE_CHANNEL_ORDER as channels; one it leaves out ranks after those it names, in the default order. */
export function channelOrder(config: Pick<Config, 'MESSAGE_CHANNEL_ORDER'>): MessageChannel[] {
  return rank([config.MESSAGE_CHANNEL_ORDER.split(',').map((name) => BY_NAME[name]!), DEFAULT_ORDER]);
}

/** The channels of each order in turn, each at its first place: what an earlier order leaves out, a later one ranks. */
const rank = (orders: ReadonlyArray<readonly MessageChannel[] | null | undefined>): MessageChannel[] => [...new Set(orders.flatMap((order) => order ?? []))];

/**
 * The order for one person: the recipient's own (a collection's recipient may name one), then
 * the organization's (PUT /v1/messaging/settings), then the deployment's MESSAGE_CHANNEL_ORDER.
 * Each only ranks what those before it leave out, so a recipient's `["SMS"]` puts SMS first and
 * keeps the organization's order for the rest.
 */
export interface PreferredOrder {
  recipient?: readonly MessageChannel[] | null;
  organization?: readonly MessageChannel[] | null;
}

/**
 * Whether the deployment has the channel: e-mail and WhatsApp always (a real provider, or the
 * sandbox outbox, which production refuses), SMS only when SMS_PROVIDER names one.
 */
const configured = (config: Pick<Config, 'SMS_PROVIDER'>, channel: MessageChannel) => channel !== 'SMS' || config.SMS_PROVIDER !== 'none';

const reaches = (channel: MessageChannel, to: Addresses) => Boolean(channel === 'EMAIL' ? to.email : to.phone);

export interface ChannelPlan {
  channels: MessageChannel[];
  /** Absent when no channel falls back to another. */
  fallback?: ChannelFallback;
}

/**
 * The channels of a message to one person. `routes` are what the asker allows, each a set of
 * channels sent side by side with the others (a collection's BOTH: the e-mail, and the phone).
 * Within a route the channels are ranked by the person's order (PreferredOrder), those not configured or for
 * which the person has no address left out, and tried one at a time: the first, then the next
 * when one gives up or cannot send. A route the person cannot be reached by is dropped while
 * another remains; with none reachable, each route's first channel stays, so the message fails
 * visibly ("Destinatário sem telefone cadastrado.") instead of nobody hearing of it.
 */
export function planChannels(
  config: Pick<Config, 'MESSAGE_CHANNEL_ORDER' | 'SMS_PROVIDER'>,
  routes: ReadonlyArray<readonly MessageChannel[]>,
  to: Addresses,
  preferred: PreferredOrder = {},
): ChannelPlan {
  const order = rank([preferred.recipient, preferred.organization, channelOrder(config)]);
  const ranked = routes.map((route) => order.filter((channel) => route.includes(channel) && configured(config, channel))).filter((route) => route.length > 0);
  const reachable = ranked.map((route) => route.filter((channel) => reaches(channel, to))).filter((route) => route.length > 0);
  const chosen = reachable.length ? reachable : ranked.map((route) => route.slice(0, 1));
  const pairs = chosen.flatMap((route) => route.slice(1).map((channel, i) => [route[i]!, channel] as const));
  return { channels: chosen.flat(), ...(pairs.length ? { fallback: Object.fromEntries(pairs) } : {}) };
}
