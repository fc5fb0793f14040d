import { spawn } from 'node:child_process';

/**
 * Runs a bench's load generator in its own process (the service's event loop must not also drive
 * the clients); resolves with the last line it prints, parsed as JSON. `script` is relative to
 * scripts/.
 */
export async function runClient<T>(script: string, env: Record<string, string>): Promise<T> {
  const child = spawn(process.execPath, ['--import', 'tsx', new URL(script, import.meta.url).pathname], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const code: number = await new Promise((resolve) => child.on('close', (c) => resolve(c ?? 1)));
  if (code !== 0) throw new Error(`${script} failed (exit ${code})`);
  return JSON.parse(output.trim().split('\n').at(-1)!) as T;
}
