/**
 * `npm run personal-data:erase -- <organizationId> <cpf|cnpj> <document>`: the erasure route's
 * command from a shell (a request by mail, an organization without an admin user).
 */
import { loadConfig } from '../config/index.ts';
import { erasePersonalData } from '../application/personal-data/erase.ts';
import { DomainError } from '../domain/shared/errors.ts';
import { systemClock, OBJECT_ID } from '../platform/ids.ts';
import { createLogger, openInfrastructure } from '../service/infrastructure.ts';

const [organizationId, type, document] = process.argv.slice(2);
if (!organizationId || !OBJECT_ID.test(organizationId) || (type !== 'cpf' && type !== 'cnpj') || !document) {
  console.error('usage: npm run personal-data:erase -- <organizationId> <cpf|cnpj> <document>');
  process.exit(2);
}

const config = loadConfig();
const infra = await openInfrastructure(config, createLogger({ ...config, LOG_LEVEL: 'warn' }));
try {
  const { event, exportsDeleted } = await erasePersonalData({ config, db: infra.db, store: infra.store, clock: systemClock }, { organizationId, type, document, erasedBy: null });
  console.log(JSON.stringify({ subjectId: event.subjectId, erasedAt: event.erasedAt, keysErased: event.keysErased, exportsDeleted }));
} catch (error) {
  if (!(error instanceof DomainError)) throw error;
  console.error(error.message);
  process.exitCode = 1;
} finally {
  await infra.close();
}
