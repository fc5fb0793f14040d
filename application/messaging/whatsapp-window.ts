import { createHmac } from 'node:crypto';
import type { Knex } from 'knex';
import { keyringFor, type Config } from '../../config/index.ts';

/** Meta lets a business answer in free text for 24 hours after the person's last message. */
export const CUSTOMER_WINDOW_MS = 24 * 60 * 60 * 1000;
/**
 * Free text stops this long before the window closes: the message still waits in our queue and in
 * Meta's, and our clock is not Meta's. A text sent too late would be refused (131047) and fall back
 * to the template anyway (channels/whatsapp.ts); the margin spares that round trip.
 */
const WINDOW_MARGIN_MS = 10 * 60 * 1000;

/**
 * One WhatsApp number, written however it came: E.164 on our side (`+5511987654321`), the
 * `wa_id` in Meta's callbacks (`5511987654321`, and for many Brazilian mobiles registered before
 * the ninth digit, `551187654321`). A Brazilian mobile (a 9 then 6 to 9 after the area code) is
 * keyed without that 9, so both spellings are the same contact; landlines (2 to 5) are left alone.
 */
export function whatsAppContact(phone: string): string {
  const digits = phone.replace(/\D/g, '');
  return digits.replace(/^(55\d{2})9([6-9]\d{7})$/, '$1$2');
}

/**
 * The contact as stored: a keyed hash (the personal-data pepper), so the table of who wrote when
 * holds no phone number. A pepper rotation forgets open windows: messages then go as templates,
 * which are always allowed.
 */
function contactHash(config: Config, phone: string): string {
  return createHmac('sha256', keyringFor(config, 'pepper').primary.secret)
    .update(`whatsapp-contact:${whatsAppContact(phone)}`)
    .digest('hex');
}

/** A message the person sent to the business number (a `messages` entry of Meta's callback) opens or extends their window. */
export async function recordInbound(app: { config: Config; db: Knex }, from: string, at: Date): Promise<void> {
  await app
    .db('messaging_whatsapp_contacts')
    .insert({ contact_hash: contactHash(app.config, from), last_inbound_at: at })
    .onConflict('contact_hash')
    .merge({ last_inbound_at: app.db.raw('greatest(messaging_whatsapp_contacts.last_inbound_at, excluded.last_inbound_at)') });
}

/** Whether free text may still go to this number now: the person wrote less than 24 hours ago (less the margin). */
export async function customerWindowOpen(app: { config: Config; db: Knex }, phone: string, now: Date): Promise<boolean> {
  const row: { last_inbound_at: Date } | undefined = await app
    .db('messaging_whatsapp_contacts')
    .where({ contact_hash: contactHash(app.config, phone) })
    .first('last_inbound_at');
  return row !== undefined && now.getTime() - row.last_inbound_at.getTime() < CUSTOMER_WINDOW_MS - WINDOW_MARGIN_MS;
}
