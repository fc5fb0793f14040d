import * as assert from 'uvu/assert';
import { setPassword } from '../../application/identity/login-commands.ts';
import { provisionTenant as provision, setUserEmail } from '../../application/identity/provisioning-commands.ts';
import type { Module, Permission } from '../../domain/identity/access.ts';
import type { Test } from 'uvu';
import { startTestApp, type TestApp } from './app.ts';

export interface TestTenant {
  organizationId: string;
  userId: string;
  credentialId: string;
  clientId: string;
  clientSecret: string;
  /** A bearer token obtained through POST /auth/authenticate, as an integrator would. */
  token: string;
}

/** POST /auth/authenticate over HTTP; returns the raw reply. */
export function authenticateOverHttp(app: TestApp, clientId?: string, clientSecret?: string) {
  const headers: Record<string, string> = {};
  if (clientId !== undefined) headers['service-client-id'] = clientId;
  if (clientSecret !== undefined) headers['service-client-secret'] = clientSecret;
  return app.call('POST', '/auth/authenticate', { headers });
}

/**
 * A tenant in one line: `const { token } = await provisionTenant(app, { modules: ['reports'] })`.
 * Modules and permissions default to all of them, as with the provisioning CLI.
 */
export async function provisionTenant(app: TestApp, options: { name?: string; modules?: readonly Module[]; permissions?: readonly Permission[] } = {}): Promise<TestTenant> {
  const tenant = await provision(app.app, { name: options.name ?? 'Test organization', modules: options.modules, permissions: options.permissions });
  const reply = await authenticateOverHttp(app, tenant.clientId, tenant.clientSecret);
  assert.is(reply.status, 200, `authenticate: ${JSON.stringify(reply.body)}`);
  const { organizationId, userId, credentialId, clientId, clientSecret } = tenant;
  return { organizationId, userId, credentialId, clientId, clientSecret, token: reply.body.accessToken };
}

/**
 * The setup most HTTP suites share: the whole service and one tenant with every module, started
 * before the suite and stopped after it; `ready` runs once both exist (more tenants, seeds) and
 * hands them to the suite. Returns `call(method, path, body?, token?)`, as that tenant unless
 * another token is given.
 */
export function serviceWithTenant<T>(test: Test<T>, ready: (app: TestApp, tenant: TestTenant) => unknown, env: Record<string, string> = {}) {
  let app: TestApp | undefined;
  let tenant: TestTenant;
  test.before(async () => {
    app = await startTestApp(env);
    tenant = await provisionTenant(app);
    await ready(app, tenant);
  });
  test.after(async () => {
    await app?.stop();
  });
  return (method: string, path: string, body?: unknown, token = tenant.token) => app!.call(method, path, { token, body });
}

/** A console login for a user: an e-mail address and a password, as the provisioning CLI sets them. */
export async function giveLogin(app: TestApp, userId: string, email: string, password: string): Promise<void> {
  await setUserEmail(app.app, userId, email);
  await setPassword(app.app, userId, password);
}
