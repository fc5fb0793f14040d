import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { DEMO_CPF_POLICY } from '../../application/credit-policy/demo-policies.ts';
import { provisionTenant } from '../../application/identity/provisioning-commands.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { authenticateOverHttp } from '../support/identity.ts';
import { eventually } from '../support/wait.ts';

/*
 * A write's reply comes from the command's own result. Here read-your-writes gives up at once
 * and, once the tenant is set up, the projections stop: every read model stays behind every
 * write, and each write must still answer what it did.
 */
const test = suite<{ app: TestApp; token: string; policyId: string; reportId: string }>('command replies do not depend on the read model');

test.before(async (ctx) => {
  ctx.app = await startTestApp({ READ_YOUR_WRITES_TIMEOUT_MS: '0' });
  const tenant = await provisionTenant(ctx.app.app, { name: 'Replies' });
  const auth = await eventually(
    async () => {
      const reply = await authenticateOverHttp(ctx.app, tenant.clientId, tenant.clientSecret);
      return reply.status === 200 ? reply : undefined;
    },
    { timeoutMs: 15_000, what: 'the credential to be projected' },
  );
  ctx.token = auth.body.accessToken;
  await eventually(async () => (await ctx.app.call('GET', '/auth/session', { token: ctx.token })).status === 200, { timeoutMs: 15_000, what: 'the session to be projected' });
  ctx.policyId = (
    await eventually(async () => {
      const reply = await ctx.app.call('POST', '/credit-policy/policy', { token: ctx.token, body: DEMO_CPF_POLICY });
      return reply.status === 200 ? reply : undefined;
    })
  ).body.id;
  const report = await eventually(
    async () => {
      const reply = await ctx.app.call('POST', '/v2/report', { token: ctx.token, body: { document: '52998224725', type: 'cpf', policyId: ctx.policyId } });
      return reply.status === 200 ? reply : undefined;
    },
    { timeoutMs: 15_000, what: 'the policy to be projected' },
  );
  ctx.reportId = report.body.id;
  await eventually(
    async () => {
      const reply = await ctx.app.call('GET', `/v2/report/${ctx.reportId}`, { token: ctx.token });
      return reply.status === 200 && !['PENDING', 'PROCESSING'].includes(reply.body.status.value);
    },
    { timeoutMs: 15_000, what: 'the report to be decided' },
  );
  await ctx.app.runner!.stop();
});
test.after(async (ctx) => {
  await ctx.app?.stop();
});

test('credit policy create, new version and archive answer 200 with the policy as written', async ({ app, token }) => {
  const created = await app.call('POST', '/credit-policy/policy', { token, body: { ...DEMO_CPF_POLICY, name: 'Escrita' } });
  assert.is(created.status, 200, JSON.stringify(created.body));
  assert.equal([created.body.name, created.body.version, created.body.status, created.body.archivedAt], ['Escrita', 1, 'ACTIVE', null]);
  assert.is(created.body.createdAt, created.body.versionCreatedAt);
  const id = created.body.id;
  assert.is((await app.call('GET', `/credit-policy/policy/${id}`, { token })).status, 404, 'the read model is really behind');

  const versioned = await app.call('PUT', `/credit-policy/policy/${id}`, { token, body: { ...DEMO_CPF_POLICY, name: 'Escrita 2' } });
  assert.is(versioned.status, 200, JSON.stringify(versioned.body));
  assert.equal([versioned.body.id, versioned.body.name, versioned.body.version], [id, 'Escrita 2', 2]);
  assert.is(versioned.body.createdAt, created.body.createdAt, 'the policy was created with its first version');

  const archived = await app.call('DELETE', `/credit-policy/policy/${id}`, { token });
  assert.is(archived.status, 200, JSON.stringify(archived.body));
  assert.equal([archived.body.status, archived.body.version, archived.body.name], ['ARCHIVED', 2, 'Escrita 2']);
  assert.ok(archived.body.archivedAt);
  assert.is(archived.body.updatedAt, archived.body.archivedAt);
});

test('manual analysis answers 200 with the decision recorded', async ({ app, token, reportId }) => {
  const reply = await app.call('POST', '/report/analyze', { token, body: { id: reportId, approved: false, commentary: 'Renda incompatível.' } });
  assert.is(reply.status, 200, JSON.stringify(reply.body));
  assert.equal([reply.body.id, reply.body.status.value, reply.body.policyStatus, reply.body.commentary], [reportId, 'DENIED', 'DENIED', 'Renda incompatível.']);
  assert.ok(reply.body.analystId && reply.body.updatedAt);
});

test('a named webhook subscription answers 201 with itself', async ({ app, token }) => {
  const reply = await app.call('POST', '/v1/webhook/subscriptions', { token, body: { url: 'https://hooks.example.com/in', events: ['report.finished'] } });
  assert.is(reply.status, 201, JSON.stringify(reply.body));
  assert.equal([reply.body.url, reply.body.status, reply.body.events], ['https://hooks.example.com/in', 'ACTIVE', ['report.finished']]);
});

test.run();
