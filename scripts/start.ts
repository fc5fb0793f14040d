/** `npm start`: every role in one process on the embedded defaults (see docs/running.md for ROLES). */
import { ConfigurationError, loadConfig } from '../config/index.ts';
import { startService } from '../service/bootstrap.ts';
import { createLogger } from '../service/infrastructure.ts';
import { watchParent } from '../service/parent-watch.ts';

let log = createLogger({ LOG_LEVEL: 'info' });
const fail = (error: unknown): never => {
  // A setting the user must change is said in one line; anything else keeps its stack for a bug report.
  if (error instanceof ConfigurationError) for (const line of error.message.split('\n')) log.fatal(line);
  else log.fatal({ err: error }, 'could not start');
  process.exit(1);
};

const config = await Promise.resolve().then(() => loadConfig()).catch(fail);
log = createLogger(config);
const service = await startService(config, log).catch(fail);

let stopping = false;
const shutdown = (fields: Record<string, string>) => {
  if (stopping) return;
  stopping = true;
  log.info(fields, 'stopping');
  service
    .stop()
    .then(() => process.exit(0))
    .catch((error) => {
      log.error({ err: error }, 'unclean stop');
      process.exit(1);
    });
};
for (const signal of ['SIGTERM', 'SIGINT'] as const) process.once(signal, () => shutdown({ signal }));
// The launcher (tsx under npm start) killed with -9 cannot relay a signal: stop as if it had.
watchParent(() => shutdown({ reason: 'the parent process exited' }));
