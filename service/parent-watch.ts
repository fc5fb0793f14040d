import { processStat } from '../platform/database/embedded.ts';

/** How often the parent is looked at: a second is soon enough for a launcher that was killed. */
const CHECK_MS = 1000;

/** Whether the process that started us is still our parent. */
function parentStillThere(parent: number): boolean {
  // Linux: an orphan is re-parented (to init or a subreaper), so its parent pid changes even if
  // the old pid is reused. process.ppid is read once at start-up in Node 20, so read /proc.
  const stat = processStat(process.pid);
  if (stat) return stat.ppid === parent;
  try {
    process.kill(parent, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Calls `onGone` once when the process that started this one dies. `npm start` runs the service
 * in a child of the tsx launcher with no pipe to it, so a `kill -9` of the launcher (which cannot
 * relay anything) would otherwise leave the service and its embedded PostgreSQL running with
 * nobody to stop them. A service started by init (pid 1, a container or systemd) never sees it
 * change. Returns a function that stops watching.
 */
export function watchParent(onGone: () => void): () => void {
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (parentStillThere(parent)) return;
    clearInterval(timer);
    onGone();
  }, CHECK_MS);
  timer.unref();
  return () => clearInterval(timer);
}
