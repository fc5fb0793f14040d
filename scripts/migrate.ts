/** `npm run migrate`: apply pending migrations (the service also does it at start). */
import { createLogger, openInfrastructure } from '../service/infrastructure.ts';
import { loadConfig } from '../config/index.ts';

const config = loadConfig();
const infra = await openInfrastructure(config, createLogger(config));
await infra.close();
console.log('migrations applied');
