import type { MessageChannel } from '../../../domain/messaging/events.ts';
import { MessagingMessages } from '../../../domain/messaging/messages.ts';
import { ConfigurationError } from '../../../config/index.ts';
import type { AppContext } from '../../context.ts';
import { SmtpEmailChannel, emailAddressOf } from './email.ts';
import { OutboxChannel } from './outbox.ts';
import type { MessageChannelPort } from './port.ts';
import { CloudApiWhatsAppChannel, phoneOf } from './whatsapp.ts';
import { whatsAppTemplatesFrom } from './whatsapp-templates.ts';
import { customerWindowOpen } from '../whatsapp-window.ts';

export type Channels = Record<MessageChannel, MessageChannelPort>;

/** The adapters the configuration names; the defaults keep every message on this machine. */
export function channelsFor(app: Pick<AppContext, 'config' | 'db' | 'log' | 'clock'>): Channels {
  const { config } = app;
  const log = app.log.child({ module: 'messaging' });
  const email = config.SMTP_URL ? new SmtpEmailChannel(config.SMTP_URL, config.SMTP_FROM, config.MESSAGING_TIMEOUT_MS, config.MESSAGING_DISPATCH_CONCURRENCY) : new OutboxChannel('EMAIL', app, log, emailAddressOf, MessagingMessages.notSentEmailSandbox);
  if (config.WHATSAPP_PROVIDER === 'sandbox') return { EMAIL: email, WHATSAPP: new OutboxChannel('WHATSAPP', app, log, phoneOf, MessagingMessages.notSentWhatsAppSandbox) };
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
  return { EMAIL: email, WHATSAPP: whatsApp };
}
