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

const config = await Promise.resolve()
  .then(() => loadConfig())
  .catch(fail);
log = createLogger(config);
const starting = startService(config, log).catch(fail);

let stopping = false;
const shutdown = (fields: Record<string, string>) => {
  // Idempotent: a stop runs once, to its end. Signalled as a process group (Ctrl-C, systemd,
  // timeout), the service gets SIGTERM twice, from the kernel and relayed by tsx; the second must
  // not end the first stop half done (and leave PostgreSQL running).
  if (stopping) return;
  stopping = true;
  log.info(fields, 'stopping');
  // Asked while starting: the start ends first, so nothing it opened is left behind.
  starting
    .then((service) => service.stop())
    .then(() => process.exit(0))
    .catch((error) => {
      log.error({ err: error }, 'unclean stop');
      process.exit(1);
    });
};
// `on`, not `once`: a handler stays, so a later signal is ignored instead of killing us mid-stop.
for (const signal of ['SIGTERM', 'SIGINT'] as const) process.on(signal, () => shutdown({ signal }));
// The launcher (tsx, the shell npm runs, npm) gone, killed with -9 or by a SIGTERM it did not pass on: stop as if signalled.
watchParent(() => shutdown({ reason: 'the process that started this one exited' }));
