/** `npm start`: every role in one process on the embedded defaults (see README for ROLES). */
import { ConfigurationError, loadConfig } from '../config/index.ts';
import { startService } from '../service/bootstrap.ts';
import { createLogger } from '../service/infrastructure.ts';

let log = createLogger({ LOG_LEVEL: 'info' });
const fail = (error: unknown): never => {
  // A setting the user must change is said in one line; anything else keeps its stack for a bug report.
  if (error instanceof ConfigurationError) log.fatal(error.message);
  else log.fatal({ err: error }, 'could not start');
  process.exit(1);
};

const config = await Promise.resolve().then(() => loadConfig()).catch(fail);
log = createLogger(config);
const service = await startService(config, log).catch(fail);

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => {
    log.info({ signal }, 'stopping');
    service
      .stop()
      .then(() => process.exit(0))
      .catch((error) => {
        log.error({ err: error }, 'unclean stop');
        process.exit(1);
      });
  });
}
