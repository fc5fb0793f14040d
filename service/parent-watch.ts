import { processStat } from '../platform/database/embedded.ts';

/** How often the launchers are looked at: a second is soon enough for a launcher that was killed. */
const CHECK_MS = 1000;
/** Under `npm start`, npm is this many processes above our parent at most (npm, the shell it runs the script in, tsx). */
const NPM_ABOVE_PARENT = 3;

/** A process and the parent it had when we looked first. */
interface Link {
  pid: number;
  parent: number;
}

/**
 * The processes whose end means the operator's command ended: our parent, and under `npm start`
 * (npm_lifecycle_event is set) everything up to npm: npm runs the script in `sh -c`, which runs the
 * tsx launcher, which runs us. A SIGTERM to npm reaches only that shell, which dies of it, and npm
 * exits; tsx and we would run on, so the whole chain is watched, not just our parent.
 */
function launchers(): Link[] {
  const chain: Link[] = [{ pid: process.pid, parent: process.ppid }];
  if (!process.env.npm_lifecycle_event) return chain;
  for (let level = 0; level < NPM_ABOVE_PARENT; level++) {
    const pid = chain[chain.length - 1]!.parent;
    const stat = processStat(pid);
    if (!stat || stat.ppid <= 1) break;
    chain.push({ pid, parent: stat.ppid });
    // npm names itself after its command (process.title): "npm start", "npm run start", "npm exec ...".
    if (/^npm( |$)/.test(processStat(stat.ppid)?.comm ?? '')) return chain;
  }
  return chain.slice(0, 1);
}

/** Whether `link` still holds: the process runs and still has the parent it had. */
function holds(link: Link): boolean {
  // Linux: an orphan is re-parented (to init or a subreaper), so its parent pid changes even if
  // the old pid is reused. process.ppid is read once at start-up in Node 20, so read /proc.
  const stat = processStat(link.pid);
  if (stat) return stat.ppid === link.parent;
  if (link.pid !== process.pid) return false;
  try {
    process.kill(link.parent, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Calls `onGone` once when the command that started this process ends. `npm start` runs the
 * service in a child of the tsx launcher with no pipe to it, so a `kill -9` of the launcher (which
 * cannot relay anything), or a SIGTERM to npm (which only its shell receives), would otherwise leave
 * the service and its embedded PostgreSQL running with nobody to stop them. A service started by
 * init (pid 1, a container or systemd) never sees its parent change. Returns a function that stops
 * watching.
 */
export function watchParent(onGone: () => void): () => void {
  const chain = launchers();
  const timer = setInterval(() => {
    if (chain.every(holds)) return;
    clearInterval(timer);
    onGone();
  }, CHECK_MS);
  timer.unref();
  return () => clearInterval(timer);
}
