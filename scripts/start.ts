/** `npm start`: every role in one process on the embedded defaults (see README for ROLES). */
import { loadConfig } from '../config/index.ts';
import { startService } from '../service/bootstrap.ts';
import { createLogger } from '../service/infrastructure.ts';

const config = loadConfig();
const log = createLogger(config);
const service = await startService(config, log).catch((error) => {
  log.fatal({ err: error }, 'could not start');
  process.exit(1);
});

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
