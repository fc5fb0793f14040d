/**
 * A dispatcher-only process for the crash test: `node --import tsx test/support/webhook-dispatcher-child.ts`
 * with DATABASE_URL and DATA_DIR of the test app in its environment. Prints "ready" once started.
 */
import { startService } from '../../service/bootstrap.ts';
import { loadConfig } from '../../config/index.ts';

const service = await startService(loadConfig({ ...process.env, ROLES: 'dispatcher' }));
process.stdout.write('ready\n');
process.once('SIGTERM', () => void service.stop().then(() => process.exit(0)));
