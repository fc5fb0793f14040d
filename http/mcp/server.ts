import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Context } from 'koa';
import type { AppContext } from '../../application/context.ts';
import type { Principal } from '../../domain/identity/access.ts';
import { refusalOf } from '../errors.ts';
import { allows } from '../gates.ts';
import type { Tool } from './tools.ts';

const INSTRUCTIONS =
  'Conector do serviço de análise de crédito. Cada ferramenta age como o usuário que autorizou o acesso, ' +
  'com os módulos da organização e as permissões dele. Para analisar um CPF ou CNPJ: listar_politicas, depois criar_relatorio com o id da política; ' +
  'a explicação da decisão está em ler_explicacao e os pareceres e o comitê em ler_insights_e_comite. Erros vêm como {code, message} em português.';

interface Session {
  app: AppContext;
  tools: readonly Tool[];
  principal: Principal;
}

const isPlainObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A refusal as the API words it (status and Portuguese message), for the agent to read and act on. */
function refusal(status: number, message: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: JSON.stringify({ code: status, message }) }], structuredContent: { code: status, message } };
}

async function callTool(session: Session, ctx: Context, tool: Tool, args: Record<string, unknown>): Promise<CallToolResult> {
  const log = session.app.log;
  try {
    const reply = await tool.run({ args, principal: session.principal, app: session.app, ctx });
    log.info({ tool: tool.name, status: reply.status }, 'mcp tool call');
    const body = reply.body ?? null;
    return { content: [{ type: 'text', text: JSON.stringify(body) }], ...(isPlainObject(body) && { structuredContent: body }) };
  } catch (error) {
    const refused = refusalOf(error);
    if (!refused) throw error;
    log.info({ tool: tool.name, status: refused.status }, 'mcp tool call refused');
    return refusal(refused.status, refused.message);
  }
}

/** An MCP server for one request (stateless): the tools this user may use, run as this user. */
function serverFor(session: Session, ctx: Context): Server {
  const server = new Server({ name: 'analise-de-credito', version: '1.0.0' }, { capabilities: { tools: { listChanged: false } }, instructions: INSTRUCTIONS });
  const byName = new Map(session.tools.map((tool) => [tool.name, tool]));
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: session.tools
      .filter((tool) => !tool.spec.gate || allows(tool.spec.gate, session.principal))
      .map((tool) => ({
        name: tool.name,
        title: tool.title,
        description: tool.description,
        inputSchema: tool.inputSchema,
        annotations: { title: tool.title, readOnlyHint: tool.readOnly, destructiveHint: false, idempotentHint: tool.readOnly, openWorldHint: false },
      })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const tool = byName.get(request.params.name);
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `Ferramenta desconhecida: ${request.params.name}`);
    return callTool(session, ctx, tool, request.params.arguments ?? {});
  });
  return server;
}

/**
 * Streamable HTTP without sessions: every POST is answered on its own (JSON replies, no stream to
 * resume), so any process behind a load balancer can take any request.
 */
export async function serveMcpRequest(ctx: Context, session: Session): Promise<void> {
  const server = serverFor(session, ctx);
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  ctx.respond = false;
  ctx.res.once('close', () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(ctx.req, ctx.res);
}
