import { migrations } from '../application/migrations.ts';
import bunyan from 'bunyan';
import type Logger from 'bunyan';
import { keyringFor, loadAllKeyrings, prepareDataDir, type Config } from '../config/index.ts';
import { identityPersonalData } from '../application/identity/personal-data.ts';
import { messagingPersonalData } from '../application/messaging/personal-data.ts';
import { collectionPersonalData } from '../application/collection/personal-data.ts';
import { formPersonalData } from '../application/collection/form/personal-data.ts';
import { consentPersonalData } from '../application/collection/consent/personal-data.ts';
import { signaturePersonalData } from '../application/collection/signature/personal-data.ts';
import { identityCheckPersonalData } from '../application/collection/identity/personal-data.ts';
import { committeePersonalData } from '../application/committee/personal-data.ts';
import { registryPersonalData } from '../application/registry/personal-data.ts';
import { recordRegistryLookups } from '../application/registry/registry-lookups.ts';
import { rekeyEmailClaims } from '../application/identity/email-claim-commands.ts';
import { proposalPersonalData } from '../application/proposal/personal-data.ts';
import { executionPersonalData } from '../application/operation/personal-data.ts';
import { reportPersonalData } from '../application/report/personal-data.ts';
import { opinionPersonalData } from '../application/report/opinions/personal-data.ts';
import { webhookUpcasters } from '../application/webhook/keys.ts';
import { subjectKeysFor, withPersonalData, type PersonalDataRule } from '../platform/personal-data/index.ts';
import { createReadYourWrites } from '../platform/projections/read-your-writes.ts';
import type { ProjectionRunner } from '../platform/projections/runner.ts';
import type { AppContext } from '../application/context.ts';
import { startEmbeddedPostgres } from '../platform/database/embedded.ts';
import { createKnex } from '../platform/database/knex.ts';
import type { Knex } from 'knex';
import { migrateToLatest } from '../platform/database/migrate.ts';
import { openEventStore } from '../platform/eventstore/open.ts';
import { createIdentityServices } from '../application/identity/index.ts';
import { createIdGenerator, systemClock } from '../platform/ids.ts';

/** Every module's declaration of the personal data its events carry (docs/personal-data.md). */
/** A module with personal fields in its events adds its declaration here, one per line. */
export const personalDataRules: PersonalDataRule[] = [
  reportPersonalData,
  identityPersonalData,
  messagingPersonalData,
  collectionPersonalData,
  formPersonalData,
  consentPersonalData,
  registryPersonalData,
  proposalPersonalData,
  executionPersonalData,
  signaturePersonalData,
  identityCheckPersonalData,
  opinionPersonalData,
  committeePersonalData,
];

// Kept apart from bootstrap.ts (roles, HTTP, workers) so the command-line tools load only what
// they use and start in a fraction of the time.

const REDACTED = '[REDACTED]';
/** Query parameters that authorize on their own (signed download links) or carry credentials. */
const SECRET_PARAMS = /^(signature|sig|token|access_token|secret|client_secret|api[-_]?key|password)$/i;
const SECRET_HEADERS = new Set(['authorization', 'service-client-secret', 'api-key', 'cookie', 'set-cookie', 'x-service-signature', 'x-service-signature-previous', 'proxy-authorization']);

/** An address with its credentials (userinfo, signature and token parameters) blanked out. */
export function redactUrl(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  return value
    .replace(/\/\/[^/@\s]*@/g, `//${REDACTED}@`)
    .replace(/([?&])([^=&#?\s]+)=([^&#\s]*)/g, (whole, separator: string, name: string) => (SECRET_PARAMS.test(name) ? `${separator}${name}=${REDACTED}` : whole));
}

function redactHeaders(headers: unknown): unknown {
  if (!headers || typeof headers !== 'object') return headers;
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, SECRET_HEADERS.has(name.toLowerCase()) ? REDACTED : value]));
}

/**
 * Whatever a line carries, secrets stay out of the logs: signed links, bearer tokens, client and
 * webhook secrets, api keys. bunyan applies these by field name, on every line of every child.
 */
export const logSerializers: bunyan.Serializers = {
  ...bunyan.stdSerializers,
  err: (error: unknown) => {
    const serialized = bunyan.stdSerializers.err(error as Error) as Record<string, unknown> | undefined;
    if (!serialized || typeof serialized !== 'object') return serialized;
    return { ...serialized, message: redactUrl(serialized.message), stack: redactUrl(serialized.stack) };
  },
  req: (req: unknown) => {
    const serialized = bunyan.stdSerializers.req(req) as Record<string, unknown> | undefined;
    if (!serialized || typeof serialized !== 'object') return serialized;
    return { ...serialized, url: redactUrl(serialized.url), headers: redactHeaders(serialized.headers) };
  },
  url: redactUrl,
  // Failure texts (a webhook attempt's, say) may quote an address.
  error: redactUrl,
  headers: redactHeaders,
  ...Object.fromEntries(
    ['secret', 'clientSecret', 'webhookSecret', 'signingSecret', 'previousSecret', 'apiKey', 'accessToken', 'token', 'authorization', 'password', 'signature'].map((field) => [
      field,
      (value: unknown) => (value === null || value === undefined ? value : REDACTED),
    ]),
  ),
};

export function createLogger(config: Pick<Config, 'LOG_LEVEL'>): Logger {
  return bunyan.createLogger({ name: 'credit-analysis', level: config.LOG_LEVEL, serializers: logSerializers });
}

/** Connect (or start the embedded database), migrate, open the event store. Used by the service and the CLIs. */
/** How personal data is sealed and opened: the event store's decorator, and the legacy sealing script. */
export function personalDataOptions(config: Config, db: Knex) {
  return { keys: subjectKeysFor(config, db), pepper: keyringFor(config, 'pepper'), rules: personalDataRules };
}

export async function openInfrastructure(config: Config, log: Logger) {
  prepareDataDir(config.DATA_DIR);
  // A missing or malformed key stops the process here, before it starts a database it would orphan.
  loadAllKeyrings(config);
  const embedded = config.DATABASE_URL
    ? undefined
    : await startEmbeddedPostgres({
        dataDir: config.DATA_DIR,
        port: config.EMBEDDED_PG_PORT,
        systemDir: config.EMBEDDED_PG_SYSTEM_DIR,
        log: (line, level) => log[level]({ component: 'embedded-postgres' }, line),
      });
  const url = config.DATABASE_URL ?? embedded!.url;
  const db = createKnex(url, config.DB_POOL_MAX, { statementTimeoutMs: config.DB_STATEMENT_TIMEOUT_MS, idleInTransactionTimeoutMs: config.DB_IDLE_IN_TRANSACTION_TIMEOUT_MS });
  await migrateToLatest(db, migrations);
  await recordRegistryLookups(db, keyringFor(config, 'pepper'));
  // On PostgreSQL the claim streams are renamed before the store is opened; EventStoreDB's are claimed anew through it.
  if (!config.EVENTSTORE_URL) await rekeyEmailClaims(db, keyringFor(config, 'pepper'));
  const store = withPersonalData(await openEventStore(config, db), { ...personalDataOptions(config, db), upcasters: webhookUpcasters(config) });
  if (config.EVENTSTORE_URL) await rekeyEmailClaims(db, keyringFor(config, 'pepper'), store);
  const close = async () => {
    await store.close();
    await db.destroy();
    await embedded?.stop();
  };
  return { db, store, close };
}

/** Build the application context over open infrastructure (no roles started). */
export function buildContext(config: Config, log: Logger, infra: { db: AppContext['db']; store: AppContext['store'] }, runner?: ProjectionRunner): AppContext {
  loadAllKeyrings(config); // contexts built over infrastructure of their own (tests) check keys too
  const base = {
    config,
    db: infra.db,
    store: infra.store,
    log,
    clock: systemClock,
    ids: createIdGenerator(),
    readYourWrites: createReadYourWrites(infra.db, log, config.READ_YOUR_WRITES_TIMEOUT_MS, runner),
  };
  return { ...base, ...createIdentityServices(base) };
}
