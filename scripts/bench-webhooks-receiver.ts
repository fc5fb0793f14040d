/**
 * The webhook receiver of bench:webhooks, in a process of its own (as a customer's endpoint is:
 * its own event loop and its own share of the cores, never the service's). Answers 204 once it
 * has the whole body, and reports each arrival over the IPC channel, in batches every 10 ms:
 * the envelope's id, its data.benchPhase, and the ms from data.benchAppendedAt to the arrival
 * (one machine, one clock). Sends `{port}` first.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Arrival {
  id: string;
  phase: string;
  latencyMs: number;
  at: number;
}

let batch: Arrival[] = [];
const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const at = Date.now();
    res.writeHead(204).end();
    const envelope = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id: string; data: { benchPhase: string; benchAppendedAt: number } };
    batch.push({ id: envelope.id, phase: envelope.data.benchPhase, latencyMs: at - envelope.data.benchAppendedAt, at });
  });
});
server.keepAliveTimeout = 5000;
setInterval(() => {
  if (!batch.length) return;
  process.send!(batch);
  batch = [];
}, 10);
server.listen(0, '127.0.0.1', () => process.send!({ port: (server.address() as AddressInfo).port }));
process.on('disconnect', () => process.exit(0));
