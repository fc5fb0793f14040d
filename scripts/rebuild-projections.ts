/**
 * `npm run projections:rebuild -- <name> [<name> ...] | --all`: replay every event into new
 * tables beside the named read models and switch them in, with a progress bar. Safe while the
 * service runs: readers see the old tables until the switch (platform/projections/rebuild.ts).
 */
import cliProgress from 'cli-progress';
import { createLogger, openInfrastructure } from '../service/infrastructure.ts';
import { loadConfig } from '../config/index.ts';
import { everyProjection, projectionsToRebuild } from '../projections/index.ts';
import { rebuildProjection } from '../platform/projections/rebuild.ts';

const args = process.argv.slice(2);
const { projections, unknown } = projectionsToRebuild(args);
if (projections.length === 0 || unknown.length) {
  console.error(`usage: npm run projections:rebuild -- <name>... | --all`);
  if (unknown.length) console.error(`unknown projection(s): ${unknown.join(', ')}`);
  console.error(`projections: ${everyProjection.map((p) => p.name).join(', ')}`);
  process.exit(2);
}

const config = loadConfig();
const log = createLogger({ ...config, LOG_LEVEL: 'warn' });
const infra = await openInfrastructure(config, log);
try {
  for (const projection of projections) {
    const name = projection.name;
    const bar = new cliProgress.SingleBar({ format: `${name.padEnd(28)} [{bar}] {percentage}% | {events} events`, hideCursor: true }, cliProgress.Presets.shades_classic);
    const started = Date.now();
    let begun = false;
    const { events } = await rebuildProjection(infra.db, infra.store, projection, {
      log,
      maxAttempts: config.PROJECTION_MAX_ATTEMPTS,
      onProgress: (p) => {
        // Positions are ordered but not dense: the prepare part approximates how far through the log we are.
        const total = Math.max(1, Number(p.head.prepare));
        if (!begun) {
          bar.start(total, 0, { events: 0 });
          begun = true;
        }
        bar.update(Math.min(total, Number(p.at.prepare)), { events: p.events });
      },
    });
    bar.update(bar.getTotal());
    bar.stop();
    const seconds = (Date.now() - started) / 1000;
    console.log(`${name}: ${events} events in ${seconds.toFixed(1)} s`);
  }
} finally {
  await infra.close();
}
