/**
 * The clients of `npm run bench:proposals`, in a process of their own: CLIENTS loops, each POST
 * /v1/proposals and at once POST /v1/proposals/{id}/run (kind REPORT) until PROPOSALS exist.
 * Prints one JSON line: every reply's milliseconds and the seconds from the first POST to the last reply.
 */
import { checkDigitsOf } from '../domain/shared/document.ts';

const { URL: base, TOKEN, POLICY_ID, PROPOSALS, CLIENTS } = process.env as Record<string, string>;
const headers = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };

async function post(path: string, body: unknown): Promise<{ json: Record<string, unknown>; ms: number }> {
  const started = performance.now();
  const response = await fetch(base + path, { method: 'POST', headers, body: JSON.stringify(body) });
  const json = (await response.json()) as Record<string, unknown>;
  if (response.status >= 300) throw new Error(`${path}: ${response.status} ${JSON.stringify(json)}`);
  return { json, ms: performance.now() - started };
}

const createMs: number[] = [];
const runMs: number[] = [];
let next = 0;
const begin = performance.now();
await Promise.all(
  Array.from({ length: Number(CLIENTS) }, async () => {
    for (let i = next++; i < Number(PROPOSALS); i = next++) {
      const digits = String(300_000_000 + i * 7919).padStart(9, '0');
      const created = await post('/v1/proposals', {
        document: digits + checkDigitsOf('cpf', digits),
        name: `Cliente ${i}`,
        productKey: 'credito-pessoal',
        requestedAmountCents: 1_000_000,
        requestedTermMonths: 12,
      });
      createMs.push(created.ms);
      runMs.push((await post(`/v1/proposals/${String(created.json.id)}/run`, { kind: 'REPORT', targetId: POLICY_ID })).ms);
    }
  }),
);
console.log(JSON.stringify({ createMs, runMs, submittedSeconds: (performance.now() - begin) / 1000 }));
