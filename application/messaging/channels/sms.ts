import twilio from 'twilio';
import type { Config } from '../../../config/index.ts';
import { MessagingMessages } from '../../../domain/messaging/messages.ts';
import { ChannelError, type MessageChannelPort, type OutgoingMessage } from './port.ts';
import { phoneOf } from './whatsapp.ts';

/** Where Twilio posts an SMS's statuses (http/messaging/sms-routes.ts). */
export const SMS_STATUS_PATH = '/callbacks/twilio/sms';

/**
 * The StatusCallback of one message: the public address plus the message id. Twilio signs this
 * exact URL, so the id cannot be changed, and the route checks the signature against the URL it
 * asked for, whatever proxies rewrote on the way in. Kept beside the adapter that asks for it, so
 * the channels do not import the callback's handling (which imports the dispatcher).
 */
export function smsStatusCallbackUrl(config: Pick<Config, 'PUBLIC_BASE_URL'>, messageId: string): string {
  return `${config.PUBLIC_BASE_URL.replace(/(?<!\/)\/+$/, '')}${SMS_STATUS_PATH}?message=${messageId}`;
}

export interface TwilioSettings {
  accountSid: string;
  /** The account's auth token, or an API key's secret with `apiKeySid`. */
  secret: string;
  apiKeySid?: string;
  /** The sender: a Messaging Service (it picks the number) or one number of the account. */
  sender: { messagingServiceSid: string } | { from: string };
  /** Where Twilio posts the message's statuses, for one message; null: no status callbacks. */
  statusCallback: ((messageId: string) => string) | null;
  timeoutMs: number;
}

/** What the twilio package throws: its RestException (the API's JSON error), or axios' network error. */
interface TwilioFailure {
  status?: number;
  code?: number | string;
  message?: string;
}

/**
 * The API's own words ("Twilio HTTP 400: The 'To' number is not a valid phone number. (código
 * 21211)"), else what went wrong on the way. A 4xx other than 429 is final (a bad number, a
 * refused sender, bad credentials); 429, 5xx, timeouts and network errors are tried again.
 */
export function twilioChannelError(error: unknown): ChannelError {
  const failure = (error ?? {}) as TwilioFailure;
  if (typeof failure.status === 'number') {
    const text = `Twilio HTTP ${failure.status}: ${failure.message ?? ''}${typeof failure.code === 'number' ? ` (código ${failure.code})` : ''}`;
    return new ChannelError(text, failure.status >= 400 && failure.status < 500 && failure.status !== 429);
  }
  if (failure.code === 'ECONNABORTED' || failure.code === 'ETIMEDOUT') return new ChannelError(MessagingMessages.timeout, false);
  return new ChannelError(`SMS: ${failure.message ?? String(error)}`, false);
}

/**
 * SMS through Twilio's Messages API (`POST /2010-04-01/Accounts/{AccountSid}/Messages.json`,
 * form-encoded, Basic auth) with the `twilio` package. The text is the short one (a code or a
 * link). The status callback URL names the message, and Twilio signs it with the auth token
 * (application/messaging/sms-status-commands.ts).
 */
export class TwilioSmsChannel implements MessageChannelPort {
  readonly channel = 'SMS' as const;
  readonly provider = 'twilio';
  private readonly client: twilio.Twilio;

  constructor(private readonly settings: TwilioSettings) {
    const { accountSid, secret, apiKeySid, timeoutMs } = settings;
    // keepAlive off: the client then sends `Connection: close`, one TLS connection per SMS (a
    // handshake against a message that costs cents). With its keep-alive agent nock 14 never
    // answers a request, so the adapter could not be tested against the API's documented replies.
    const options = { accountSid, timeout: timeoutMs, keepAlive: false, autoRetry: false };
    this.client = apiKeySid ? twilio(apiKeySid, secret, options) : twilio(accountSid, secret, options);
  }

  async send(message: OutgoingMessage): Promise<{ providerMessageId: string | null }> {
    const to = phoneOf(message);
    const { sender, statusCallback } = this.settings;
    try {
      const sent = await this.client.messages.create({
        to,
        body: message.short,
        ...sender,
        ...(statusCallback ? { statusCallback: statusCallback(message.messageId) } : {}),
      });
      return { providerMessageId: sent.sid ?? null };
    } catch (error) {
      throw twilioChannelError(error);
    }
  }

  async close(): Promise<void> {}
}
