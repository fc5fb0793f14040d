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
  postgres: number;
  at: number;
}

/** Clock ticks per second of /proc's utime and stime: USER_HZ, 100 on every Linux build in use. */
const TICKS_PER_SECOND = 100;

/**
 * utime + stime of one /proc stat file, cutime + cstime (its children's that ended and it
 * reaped), and its parent's pid; null if the task is gone.
 */
function readStat(path: string): { ticks: number; reapedChildren: number; parent: number } | null {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return null;
  }
  // The command name may hold spaces and parentheses: the fields start after the last ')'.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return { parent: Number(fields[1]), ticks: Number(fields[11]) + Number(fields[12]), reapedChildren: Number(fields[13]) + Number(fields[14]) };
}

function threadsOfThisProcess(): { main: number; otherThreads: number } {
  let main = 0;
  let otherThreads = 0;
  for (const tid of readdirSync('/proc/self/task')) {
    const ticks = readStat(`/proc/self/task/${tid}/stat`)?.ticks ?? 0;
    if (Number(tid) === process.pid) main += ticks;
    else otherThreads += ticks;
  }
  return { main, otherThreads };
}

/**
 * The postmaster (the parent of the backend that answered), its children alive, and those that
 * ended: a backend that exits (a pool closing an idle connection) leaves its ticks in the
 * postmaster's cutime and cstime once reaped, so the total never goes down.
 */
function clusterTicks(postmaster: number): number {
  const own = readStat(`/proc/${postmaster}/stat`);
  let total = (own?.ticks ?? 0) + (own?.reapedChildren ?? 0);
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

/** `backendPid`: any backend of the cluster the bench uses (`select pg_backend_pid()`). */
export function cpuUse(backendPid: number): CpuUse | null {
  if (!existsSync('/proc/self/task')) return null;
  const postmaster = readStat(`/proc/${backendPid}/stat`)?.parent;
  // A cluster on another machine (or out of sight) cannot be counted: measure nothing.
  if (!postmaster) return null;
  const now = (): Ticks => ({ ...threadsOfThisProcess(), postgres: clusterTicks(postmaster), at: Date.now() });
  return {
    now,
    since(start) {
      const end = now();
      const seconds = (key: 'main' | 'otherThreads' | 'postgres') => (end[key] - start[key]) / TICKS_PER_SECOND;
      const busy = seconds('main') + seconds('otherThreads') + seconds('postgres');
      const wall = (end.at - start.at) / 1000;
      return (
        `cpu ${busy.toFixed(2)} s in ${wall.toFixed(2)} s = ${(busy / wall).toFixed(2)} of ${availableParallelism()} cores busy ` +
        `(node main thread ${seconds('main').toFixed(2)} s, its other threads ${seconds('otherThreads').toFixed(2)} s, PostgreSQL ${seconds('postgres').toFixed(2)} s)`
      );
    },
  };
}
