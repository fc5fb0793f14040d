import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface SmtpReceiver {
  /** SMTP_URL for the service: plain SMTP on 127.0.0.1, no TLS, no login. */
  url: string;
  mails: ParsedMail[];
  /** Resolves with the mails once `count` have arrived (rejects after timeoutMs). */
  waitFor(count: number, timeoutMs?: number): Promise<ParsedMail[]>;
  close(): Promise<void>;
}

/**
 * A real SMTP server on 127.0.0.1 standing in for the mail relay; every accepted mail is parsed
 * with mailparser. `refuse(address)` returns the reply (code and text) for a recipient it rejects.
 */
export async function startSmtpReceiver(options: { refuse?: (address: string) => { code: number; text: string } | null } = {}): Promise<SmtpReceiver> {
  const mails: ParsedMail[] = [];
  const waiters = new Set<() => void>();
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    disableReverseLookup: true,
    onRcptTo(address, _session, callback) {
      const refusal = options.refuse?.(address.address) ?? null;
      if (!refusal) return callback();
      const error = Object.assign(new Error(refusal.text), { responseCode: refusal.code });
      return callback(error);
    },
    onData(stream, _session, callback) {
      simpleParser(stream)
        .then((mail) => {
          mails.push(mail);
          for (const wake of waiters) wake();
          callback();
        })
        .catch(callback);
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    mails,
    waitFor(count, timeoutMs = 10_000) {
      if (mails.length >= count) return Promise.resolve(mails);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`timed out waiting for ${count} mails (got ${mails.length})`));
        }, timeoutMs);
        function check() {
          if (mails.length < count) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve(mails);
        }
        waiters.add(check);
      });
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
