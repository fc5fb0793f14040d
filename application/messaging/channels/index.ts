import type { MessageChannel } from '../../../domain/messaging/events.ts';
import { MessagingMessages } from '../../../domain/messaging/messages.ts';
import { ConfigurationError } from '../../../config/index.ts';
import type { AppContext } from '../../context.ts';
import { SmtpEmailChannel, emailAddressOf } from './email.ts';
import { OutboxChannel } from './outbox.ts';
import type Logger from 'bunyan';
import { AbsentChannel } from './absent.ts';
import type { MessageChannelPort } from './port.ts';
import { smsStatusCallbackUrl, TwilioSmsChannel } from './sms.ts';
import { CloudApiWhatsAppChannel, phoneOf } from './whatsapp.ts';
import { whatsAppTemplatesFrom } from './whatsapp-templates.ts';
import { customerWindowOpen } from '../whatsapp-window.ts';

export type Channels = Record<MessageChannel, MessageChannelPort>;

/** The adapters the configuration names; the defaults keep every message on this machine. */
export function channelsFor(app: Pick<AppContext, 'config' | 'db' | 'log' | 'clock'>): Channels {
  const { config } = app;
  const log = app.log.child({ module: 'messaging' });
  const email = config.SMTP_URL
    ? new SmtpEmailChannel(config.SMTP_URL, config.SMTP_FROM, config.MESSAGING_TIMEOUT_MS, config.MESSAGING_DISPATCH_CONCURRENCY)
    : new OutboxChannel('EMAIL', app, log, emailAddressOf, MessagingMessages.notSentEmailSandbox);
  const sms = smsChannelFor(app, log);
  if (config.WHATSAPP_PROVIDER === 'sandbox') return { EMAIL: email, WHATSAPP: new OutboxChannel('WHATSAPP', app, log, phoneOf, MessagingMessages.notSentWhatsAppSandbox), SMS: sms };
  if (!config.WHATSAPP_PHONE_NUMBER_ID || !config.WHATSAPP_TOKEN) {
    throw new ConfigurationError('WHATSAPP_PROVIDER=cloud-api needs WHATSAPP_PHONE_NUMBER_ID and WHATSAPP_TOKEN; fix: set both, or WHATSAPP_PROVIDER=sandbox');
  }
  const whatsApp = new CloudApiWhatsAppChannel({
    baseUrl: config.WHATSAPP_API_URL,
    phoneNumberId: config.WHATSAPP_PHONE_NUMBER_ID,
    token: config.WHATSAPP_TOKEN,
    timeoutMs: config.MESSAGING_TIMEOUT_MS,
    templates: whatsAppTemplatesFrom(config.WHATSAPP_TEMPLATES),
    windowOpen: (phone) => customerWindowOpen(app, phone, app.clock.now()),
  });
  return { EMAIL: email, WHATSAPP: whatsApp, SMS: sms };
}

/**
 * SMS_PROVIDER: Twilio, the sandbox outbox, or none. With none, planChannels queues no SMS; a
 * message queued with one before the setting changed ends NOT_SENT on it, with the reason.
 */
function smsChannelFor(app: Pick<AppContext, 'config' | 'db' | 'log'>, log: Logger): MessageChannelPort {
  const { config } = app;
  if (config.SMS_PROVIDER === 'none') return new AbsentChannel('SMS', MessagingMessages.notSentSmsNone);
  if (config.SMS_PROVIDER === 'sandbox') return new OutboxChannel('SMS', app, log, phoneOf, MessagingMessages.notSentSmsSandbox);
  const { TWILIO_ACCOUNT_SID: accountSid, TWILIO_AUTH_TOKEN: authToken, TWILIO_API_KEY_SID: apiKeySid, TWILIO_API_KEY_SECRET: apiKeySecret } = config;
  const secret = apiKeySid ? apiKeySecret : authToken;
  const sender = config.TWILIO_MESSAGING_SERVICE_SID ? { messagingServiceSid: config.TWILIO_MESSAGING_SERVICE_SID } : config.TWILIO_FROM ? { from: config.TWILIO_FROM } : null;
  if (!accountSid || !secret || !sender) {
    throw new ConfigurationError(
      'SMS_PROVIDER=twilio needs TWILIO_ACCOUNT_SID, TWILIO_AUTH_TOKEN (or TWILIO_API_KEY_SID and TWILIO_API_KEY_SECRET) and TWILIO_FROM or TWILIO_MESSAGING_SERVICE_SID; fix: set them, or SMS_PROVIDER=none',
    );
  }
  return new TwilioSmsChannel({
    accountSid,
    secret,
    ...(apiKeySid ? { apiKeySid } : {}),
    sender,
    // Twilio signs its callbacks with the auth token: without it they could not be checked, so none is asked for.
    statusCallback: authToken ? (messageId) => smsStatusCallbackUrl(config, messageId) : null,
    timeoutMs: config.MESSAGING_TIMEOUT_MS,
  });
}
