import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A real OpenAI-compatible chat completions server on 127.0.0.1 for the committee: each call is
 * answered with a valid opinion or synthesis (the chair's prompt names the "Presidente"), after
 * `delayMs`, or held until released, or answered with `content` instead (invalid JSON, say).
 */
export interface CommitteeChatServer {
  url: string;
  calls: number;
  /** Calls held by `hold` are answered once this is called. */
  release(): void;
  close(): Promise<void>;
}

export interface CommitteeChatServerOptions {
  delayMs?: number;
  hold?: boolean;
  content?: string;
}

const opinion = {
  score: 7.5,
  resumo: 'Parecer favorável.',
  parecer: 'Dados consistentes, sem alertas relevantes.',
  redFlags: [],
  positiveFactors: [{ label: 'Dados completos', detail: 'As fontes responderam.' }],
  confidence: 0.8,
  infoGaps: [],
  recommendation: 'APPROVE',
};
const synthesis = {
  decision: 'APPROVED',
  resumo: 'Comitê favorável.',
  reasoning: 'Pareceres convergentes.',
  proximaAcao: 'Formalizar a operação.',
  conditions: [],
  monitoringItems: [],
  infoGapsBeforeDecision: [],
  limitReview: { status: 'ADEQUADO', limite: 10000, taxa: 1.9, prazo: 24, justificativa: 'Compatível.' },
  confidence: 0.8,
};

/** The model the request named, echoed back as a real server does. */
function modelOf(body: string): string {
  try {
    return String((JSON.parse(body) as { model?: unknown }).model ?? 'unknown');
  } catch {
    return 'unknown';
  }
}

export async function startCommitteeChatServer(options: CommitteeChatServerOptions = {}): Promise<CommitteeChatServer> {
  const held: Array<() => void> = [];
  let released = !options.hold;
  const state = { calls: 0 };
  const server: Server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      state.calls++;
      const chair = body.includes('Presidente do comit');
      const content = options.content ?? JSON.stringify(chair ? synthesis : opinion);
      const answer = () =>
        setTimeout(() => {
          response.writeHead(200, { 'content-type': 'application/json' });
          response.end(
            JSON.stringify({
              id: `chatcmpl-${state.calls}`,
              object: 'chat.completion',
              created: Math.floor(Date.now() / 1000),
              model: modelOf(body),
              choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
              usage: { prompt_tokens: 1200, completion_tokens: 300, total_tokens: 1500 },
            }),
          );
        }, options.delayMs ?? 0);
      if (released) answer();
      else held.push(answer);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    get calls() {
      return state.calls;
    },
    release() {
      released = true;
      for (const answer of held.splice(0)) answer();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
