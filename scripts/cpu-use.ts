/**
 * CPU time spent during a bench phase, split into this process's main thread, its other threads
 * (worker threads, V8 and libuv helpers) and the PostgreSQL cluster's processes, read from Linux's
 * /proc. It tells a phase that queued for a saturated machine (all cores busy) from one that
 * waited on something else. Elsewhere than Linux it measures nothing and prints nothing.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';

interface Ticks {
  main: number;
  otherThreads: number;
  /** Child processes of the node process that ended (a command a bench ran), as their parent counts them. */
  children: number;
  postgres: number;
  at: number;
}

/** Clock ticks per second of /proc's utime and stime: USER_HZ, 100 on every Linux build in use. */
const TICKS_PER_SECOND = 100;

/**
 * utime + stime of one /proc stat file, its parent's pid, and cutime + cstime: the time of its
 * children that ended and were waited for (a backend that closed, a command the bench ran); null
 * if the task is gone.
 */
function readStat(path: string): { ticks: number; parent: number; reaped: number } | null {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return null;
  }
  // The command name may hold spaces and parentheses: the fields start after the last ')'.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return { parent: Number(fields[1]), ticks: Number(fields[11]) + Number(fields[12]), reaped: Number(fields[13]) + Number(fields[14]) };
}

function threadsOf(pid: number): { main: number; otherThreads: number } {
  let main = 0;
  let otherThreads = 0;
  let tids: string[];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    // The process has ended: nothing more to count.
    return { main, otherThreads };
  }
  for (const tid of tids) {
    const ticks = readStat(`/proc/${pid}/task/${tid}/stat`)?.ticks ?? 0;
    if (Number(tid) === pid) main += ticks;
    else otherThreads += ticks;
  }
  return { main, otherThreads };
}

/**
 * The postmaster (the parent of the backend that answered) and all its children: those running,
 * and those that ended (the postmaster waits for its backends, so their time stays in its own).
 */
function clusterTicks(postmaster: number): number {
  const own = readStat(`/proc/${postmaster}/stat`);
  let total = (own?.ticks ?? 0) + (own?.reaped ?? 0);
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    const stat = readStat(`/proc/${pid}/stat`);
    if (stat?.parent === postmaster) total += stat.ticks;
  }
  return total;
}

export interface CpuUse {
  /** Seconds of CPU since `start`, and the cores busy on average over the wall time. */
  since(start: Ticks): string;
  now(): Ticks;
}

/**
 * `backendPid`: any backend of the cluster the bench uses (`select pg_backend_pid()`); `nodePid`:
 * the process whose threads are counted, this one unless the service runs in a process of its own.
 */
export function cpuUse(backendPid: number, nodePid = process.pid): CpuUse | null {
  if (!existsSync('/proc/self/task')) return null;
  const postmaster = readStat(`/proc/${backendPid}/stat`)?.parent;
  // A cluster on another machine (or out of sight) cannot be counted: measure nothing.
  if (!postmaster) return null;
  const now = (): Ticks => ({ ...threadsOf(nodePid), children: readStat(`/proc/${nodePid}/stat`)?.reaped ?? 0, postgres: clusterTicks(postmaster), at: Date.now() });
  return {
    now,
    since(start) {
      const end = now();
      const seconds = (key: 'main' | 'otherThreads' | 'children' | 'postgres') => (end[key] - start[key]) / TICKS_PER_SECOND;
      const busy = seconds('main') + seconds('otherThreads') + seconds('children') + seconds('postgres');
      const children = seconds('children') > 0 ? `, the commands it ran ${seconds('children').toFixed(2)} s` : '';
      const wall = (end.at - start.at) / 1000;
      return (
        `cpu ${busy.toFixed(2)} s in ${wall.toFixed(2)} s = ${(busy / wall).toFixed(2)} of ${availableParallelism()} cores busy ` +
        `(node main thread ${seconds('main').toFixed(2)} s, its other threads ${seconds('otherThreads').toFixed(2)} s${children}, PostgreSQL ${seconds('postgres').toFixed(2)} s)`
      );
    },
  };
}
