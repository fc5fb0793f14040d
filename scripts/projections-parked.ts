/**
 * `npm run projections:parked -- list [--all] | retry <id> | skip <id>`: the events projections
 * parked because they could not apply them (platform/projections/parking.ts).
 * - list: one JSON object per parked event (--all: retried and skipped ones too).
 * - retry: apply the event now, then the later events of its stream the projection already passed.
 * - skip: give up on it; the projection stays without it.
 * Exit code 0 on success, 1 when the retry fails again (the event stays parked), 2 on bad arguments.
 */
import type { ParkedEvent } from '../platform/projections/parking.ts';

const [command, arg] = process.argv.slice(2);
const id = Number(arg);
const usage = 'usage: npm run projections:parked -- list [--all] | retry <id> | skip <id>';
if (!(command === 'list' && (arg === undefined || arg === '--all')) && !((command === 'retry' || command === 'skip') && Number.isSafeInteger(id) && id > 0)) {
  console.error(usage);
  process.exit(2);
}

// Loaded only once the arguments are known good: a usage error answers at once.
const [{ createLogger, openInfrastructure }, { loadConfig }, { everyProjection }, { positionToString }, { listParked, retryParked, skipParked }] = await Promise.all([
  import('../service/infrastructure.ts'),
  import('../config/index.ts'),
  import('../projections/index.ts'),
  import('../platform/eventstore/port.ts'),
  import('../platform/projections/parking.ts'),
]);

const show = (p: ParkedEvent) => JSON.stringify({ ...p, position: positionToString(p.position) });

const config = loadConfig();
const log = createLogger({ ...config, LOG_LEVEL: 'warn' });
const infra = await openInfrastructure(config, log);
let code = 0;
try {
  if (command === 'list') for (const parked of await listParked(infra.db, { all: arg === '--all' })) console.log(show(parked));
  else if (command === 'skip') console.log(show(await skipParked(infra.db, id)));
  else console.log(show(await retryParked(infra.db, infra.store, everyProjection, id)));
} catch (error) {
  console.error(`${command} ${id}: ${(error as Error).message}`);
  code = 1;
} finally {
  await infra.close();
}
process.exit(code);
