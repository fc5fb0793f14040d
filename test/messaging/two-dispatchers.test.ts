import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { queueMessage } from '../../application/messaging/commands.ts';
import { loadConfig } from '../../config/index.ts';
import { startService, type RunningService } from '../../service/bootstrap.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { provisionTenant, type TestTenant } from '../support/identity.ts';
import { eventually } from '../support/wait.ts';
import { startSmtpReceiver, type SmtpReceiver } from '../support/smtp-receiver.ts';

interface Ctx {
  smtp: SmtpReceiver;
  app: TestApp;
  second: RunningService;
  tenant: TestTenant;
}
const test = suite<Ctx>('messaging: two dispatcher processes share the queue, each message sent once');

test.before(async (ctx) => {
  ctx.smtp = await startSmtpReceiver();
  ctx.app = await startTestApp({ SMTP_URL: ctx.smtp.url, MESSAGING_DISPATCH_CONCURRENCY: '2' });
  ctx.tenant = await provisionTenant(ctx.app);
  // A second process on the same database and data folder (same sealing keys), dispatcher only.
  const { DATABASE_URL, DATA_DIR } = ctx.app.app.config;
  ctx.second = await startService(loadConfig({ DATABASE_URL, DATA_DIR, ROLES: 'dispatcher', SMTP_URL: ctx.smtp.url, MESSAGING_DISPATCH_CONCURRENCY: '2', LOG_LEVEL: 'fatal' }));
});
test.after(async (ctx) => {
  await ctx.second?.stop();
  await ctx.app?.stop();
  await ctx.smtp?.close();
});

test('40 messages queued at once: 40 mails, no Message-ID twice, every row sent on its first attempt', async (ctx) => {
  const ids = await Promise.all(
    Array.from({ length: 40 }, (_, i) =>
      queueMessage(ctx.app.app, {
        organizationId: ctx.tenant.organizationId,
        dedupeKey: `burst:${i}`,
        template: 'COLLECTION_INVITE',
        channels: ['EMAIL'],
        to: { name: `Pessoa ${i}`, email: `pessoa${i}@example.com`, phone: null },
        correlation: { collectionId: 'd'.repeat(24), recipientId: i.toString(16).padStart(24, '0') },
        content: { link: `https://app.example/c/${i}`, subjectName: 'Empresa', organizationName: 'Banco', operatorMessage: null, pendingItems: [], expiresAt: null },
      }).then((r) => r.messageId),
    ),
  );
  await ctx.smtp.waitFor(40, 30_000);
  const seen = ctx.smtp.mails.map((m) => m.messageId);
  assert.is(new Set(seen).size, 40);
  assert.equal(new Set(seen), new Set(ids.map((id) => `<${id}@messaging.credit-analysis>`)));
  // A mail arrives before its row is marked: wait for the rows, then look at their attempts.
  const rows = await eventually(
    async () => {
      const current: Array<{ status: string; attempts: number }> = await ctx.app.app.db('messaging_deliveries').whereIn('message_id', ids);
      return current.every((r) => r.status === 'sent') ? current : undefined;
    },
    { timeoutMs: 10_000, what: 'every row sent' },
  );
  assert.ok(rows.every((r) => r.attempts === 1));
});

test.run();
