import { spawn, type ChildProcess } from 'node:child_process';
import { onBenchEnd } from './bench-method.ts';

/** `script` (relative to scripts/) in a node process of its own, stopped by endBench if the bench ends first. */
function startScript(script: string, env: Record<string, string>): { child: ChildProcess; closed: Promise<number>; stop(): Promise<void> } {
  const child = spawn(process.execPath, ['--import', 'tsx', new URL(script, import.meta.url).pathname], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const closed = new Promise<number>((resolve) => child.on('close', (code) => resolve(code ?? 1)));
  let ended = false;
  void closed.then(() => (ended = true));
  const stop = async () => {
    forget();
    if (!ended) {
      child.kill('SIGTERM');
      await closed;
    }
  };
  const forget = onBenchEnd(stop);
  void closed.then(forget);
  return { child, closed, stop };
}

/**
 * Runs a bench's load generator in its own process (the service's event loop must not also drive
 * the clients); resolves with the last line it prints, parsed as JSON. `script` is relative to
 * scripts/.
 */
export async function runClient<T>(script: string, env: Record<string, string>): Promise<T> {
  const { child, closed } = startScript(script, env);
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const code = await closed;
  if (code !== 0) throw new Error(`${script} failed (exit ${code})`);
  return JSON.parse(output.trim().split('\n').at(-1)!) as T;
}

/**
 * Starts a baseline server in a process of its own (as strong as ours: its own event loop, its
 * own cores), waits for the first line it prints, parsed as JSON (`{url}`), and stops it with
 * SIGTERM. `script` is relative to scripts/.
 */
export async function startServerProcess(script: string, env: Record<string, string>): Promise<{ url: string; stop(): Promise<void> }> {
  const { child, closed, stop } = startScript(script, env);
  const { url } = await new Promise<{ url: string }>((resolve, reject) => {
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const newline = output.indexOf('\n');
      if (newline >= 0) resolve(JSON.parse(output.slice(0, newline)) as { url: string });
    });
    void closed.then(() => reject(new Error(`${script} ended before it listened`)));
  });
  return { url, stop };
}
