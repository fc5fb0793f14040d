import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A real HTTP server on 127.0.0.1 speaking the chat completions protocol, for the
 * OpenAI-compatible adapter's tests and the committee benchmark: each request takes the next
 * scripted answer (the last one repeats), and every request body is kept.
 */
export type Scripted =
  | { kind: 'content'; content: string; delayMs?: number; promptTokens?: number; completionTokens?: number }
  | { kind: 'status'; status: number; headers?: Record<string, string>; body?: unknown }
  /** Never answers: the client's timeout must end the call. */
  | { kind: 'hang' };

export interface ChatServer {
  baseUrl: string;
  requests: Array<{ at: number; body: any; headers: IncomingMessage['headers'] }>;
  script(...answers: Scripted[]): void;
  close(): Promise<void>;
}

export const json = (value: unknown): Extract<Scripted, { kind: 'content' }> => ({ kind: 'content', content: JSON.stringify(value) });

function completion(model: string, answer: Extract<Scripted, { kind: 'content' }>) {
  return {
    id: `chatcmpl-${Date.now()}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [{ index: 0, message: { role: 'assistant', content: answer.content }, finish_reason: 'stop' }],
    usage: { prompt_tokens: answer.promptTokens ?? 100, completion_tokens: answer.completionTokens ?? 20, total_tokens: (answer.promptTokens ?? 100) + (answer.completionTokens ?? 20) },
  };
}

export async function startChatServer(): Promise<ChatServer> {
  let answers: Scripted[] = [];
  const requests: ChatServer['requests'] = [];
  const hanging = new Set<ServerResponse>();
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk: Buffer) => (raw += chunk.toString()));
    req.on('end', () => {
      const body = JSON.parse(raw || '{}');
      requests.push({ at: performance.now(), body, headers: req.headers });
      const answer = answers.length > 1 ? answers.shift()! : answers[0];
      if (!answer || req.url !== '/v1/chat/completions') {
        res.writeHead(404).end();
        return;
      }
      if (answer.kind === 'hang') {
        hanging.add(res);
        return;
      }
      if (answer.kind === 'status') {
        res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers }).end(JSON.stringify(answer.body ?? { error: { message: `status ${answer.status}` } }));
        return;
      }
      const send = () => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(completion(body.model, answer)));
      if (answer.delayMs) setTimeout(send, answer.delayMs);
      else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    script(...next) {
      answers = next;
      requests.length = 0;
    },
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
