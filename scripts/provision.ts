/**
 * `npm run --silent provision -- --org "<name>" [--user "<name>"] [--email <address>] [--modules a,b] [--permissions p,q] [--demo]`
 * `npm run --silent provision -- --set-email <userId> --email <address>`   a user's e-mail address
 * `npm run --silent provision -- --set-password <userId> < file`   the console password, read from stdin
 * `npm run --silent provision -- --credential <userId>`   another credential for a user
 * `npm run --silent provision -- --revoke <clientId>`
 *
 * Prints exactly one JSON object on stdout (logs go to stderr), so scripts can parse it. Works on
 * DATABASE_URL or the embedded database, whether or not the service is running on it.
 */
import { parseArgs } from 'node:util';
import type { AppContext } from '../application/context.ts';
import type { ProvisionedTenant } from '../application/identity/provisioning-commands.ts';
import { MODULES, PERMISSIONS, isModule, isPermission, type Principal } from '../domain/identity/access.ts';

const USAGE = `usage:
  provision --org "<name>" [--user "<name>"] [--email <address>] [--modules a,b,...] [--permissions p,q,...] [--demo]
  provision --set-email <userId> --email <address>
  provision --set-password <userId>          (the password on stdin, one line)
  provision --credential <userId>
  provision --revoke <clientId>
modules (default: all): ${MODULES.join(', ')}
permissions (default: all): ${PERMISSIONS.join(', ')}`;

function fail(message: string, code = 2): never {
  process.stderr.write(`${message}\n`);
  process.exit(code);
}

function list(text: string | undefined, valid: (v: string) => boolean, what: string): string[] | undefined {
  if (text === undefined) return undefined;
  const names = text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = names.filter((n) => !valid(n));
  if (unknown.length) fail(`unknown ${what}: ${unknown.join(', ')}\n${USAGE}`);
  return names;
}

const { values: args } = (() => {
  try {
    return parseArgs({
      options: {
        org: { type: 'string' },
        user: { type: 'string' },
        email: { type: 'string' },
        'set-email': { type: 'string' },
        'set-password': { type: 'string' },
        modules: { type: 'string' },
        permissions: { type: 'string' },
        demo: { type: 'boolean', default: false },
        revoke: { type: 'string' },
        credential: { type: 'string' },
        help: { type: 'boolean', default: false },
      },
      strict: true,
    });
  } catch (error) {
    return fail(`${(error as Error).message}\n${USAGE}`);
  }
})();
const actions = [args.org, args.revoke, args.credential, args['set-email'], args['set-password']].filter((a) => a !== undefined).length;
if (args.help || actions !== 1) fail(USAGE, args.help ? 0 : 2);
if (args['set-email'] !== undefined && args.email === undefined) fail(`--set-email needs --email\n${USAGE}`);
const modules = list(args.modules, isModule, 'module(s)');
const permissions = list(args.permissions, isPermission, 'permission(s)');

// Loaded only once the arguments are known to be good: the service's modules take seconds to load.
const [{ default: bunyan }, { buildContext, openInfrastructure }, { demoSeeders }, provisioning, { loadConfig }, { allProjections }, { ProjectionRunner }] = await Promise.all([
  import('bunyan'),
  import('../service/infrastructure.ts'),
  import('../application/demo.ts'),
  import('../application/identity/provisioning-commands.ts'),
  import('../config/index.ts'),
  import('../projections/index.ts'),
  import('../platform/projections/runner.ts'),
]);
const { issueCredential, provisionTenant, revokeCredential, setUserEmail } = provisioning;
const { setPassword } = await import('../application/identity/login-commands.ts');

/** The password comes on stdin, never in the arguments (which other users of the machine can read in ps). */
async function passwordFromStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
}

async function seedDemo(app: AppContext, tenant: ProvisionedTenant): Promise<Record<string, unknown>> {
  // Built here rather than from a session: seeders act as the tenant's user, not through a token.
  const principal: Principal = {
    organizationId: tenant.organizationId,
    userId: tenant.userId,
    userName: args.user ?? args.org!,
    credentialId: tenant.credentialId,
    sessionId: '',
    modules: new Set(tenant.modules),
    permissions: new Set(tenant.permissions),
  };
  const seeded: Record<string, unknown> = {};
  const demoErrors: Array<{ seeder: string; message: string }> = [];
  for (const seeder of demoSeeders) {
    try {
      Object.assign(seeded, await seeder.seed(app, { organizationId: tenant.organizationId, userId: tenant.userId, principal }));
    } catch (error) {
      demoErrors.push({ seeder: seeder.name, message: (error as Error).message });
    }
  }
  return demoErrors.length ? { ...seeded, demoErrors } : seeded;
}

async function run(app: AppContext): Promise<Record<string, unknown>> {
  if (args.revoke !== undefined) return revokeCredential(app, args.revoke);
  if (args.credential !== undefined) return { ...(await issueCredential(app, args.credential)) };
  if (args['set-email'] !== undefined) return setUserEmail(app, args['set-email'], args.email!);
  if (args['set-password'] !== undefined) return setPassword(app, args['set-password'], await passwordFromStdin());
  const tenant = await provisionTenant(app, { name: args.org!, userName: args.user, email: args.email, modules, permissions });
  return args.demo ? { ...tenant, ...(await seedDemo(app, tenant)) } : { ...tenant };
}

const config = loadConfig();
const log = bunyan.createLogger({ name: 'provision', level: process.env.LOG_LEVEL ? config.LOG_LEVEL : 'warn', stream: process.stderr });
const infra = await openInfrastructure(config, log);
// Our own runner keeps the read tables moving when no service runs on this database; when one
// does, it holds the projections' locks and this runner only waits, while read-your-writes
// follows the service's checkpoints.
const runner = new ProjectionRunner(infra.db, infra.store, allProjections, { batchSize: config.PROJECTION_BATCH_SIZE, log, lockRetryMs: 200 });
const app = buildContext(config, log, infra, runner);
await runner.start();
let output: Record<string, unknown> | undefined;
let exitCode = 0;
try {
  output = await run(app);
  // Whatever the commands and seeders wrote is readable once the CLI returns.
  await app.readYourWrites(
    allProjections.map((p) => p.name),
    await app.store.headPosition(),
  );
  if (output.demoErrors) exitCode = 1;
} catch (error) {
  process.stderr.write(`provision failed: ${(error as Error).message}\n`);
  exitCode = 1;
} finally {
  await runner.stop();
  await infra.close();
}
if (output) process.stdout.write(`${JSON.stringify(output)}\n`, () => process.exit(exitCode));
else process.exit(exitCode);
