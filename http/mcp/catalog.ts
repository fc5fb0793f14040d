import Type from 'typebox';
import { followReport } from '../../application/report/live-feed.ts';
import { readReport } from '../report/read-routes.ts';
import type { Reply } from '../route.ts';
import type { ToolDeclaration, ToolInput } from './tools.ts';

const WAIT_DEFAULT_SECONDS = 60;
const WAIT_MAX_SECONDS = 120;

/**
 * Wait for a report just created to be finalized (every source answered and the policy decided),
 * woken by its stream's events rather than polling; after `aguardarSegundos` the report is
 * returned as it stands, still pending, for the agent to read again later.
 */
async function untilFinalized(created: Reply, { args, principal, app }: ToolInput): Promise<Reply> {
  const reportId = (created.body as { id?: string } | undefined)?.id;
  const seconds = typeof args.aguardarSegundos === 'number' ? args.aguardarSegundos : WAIT_DEFAULT_SECONDS;
  if (!reportId || seconds <= 0) return created;
  const deadline = Date.now() + seconds * 1000;
  let moved = false;
  let wake = () => {};
  const unwatch = followReport(
    app,
    reportId,
    async () => {
      moved = true;
      wake();
    },
    () => wake(),
  );
  try {
    for (;;) {
      moved = false;
      const report = await readReport(app, principal.organizationId, reportId);
      if (report.reportProgress.isFinalized || Date.now() >= deadline) return { status: 200, body: report };
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, deadline - Date.now());
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
        // A change the read model showed while the report was being read wakes at once.
        if (moved) wake();
      });
    }
  } finally {
    unwatch();
  }
}

/** What an analyst's agent needs, each tool one API route (same gate, same schemas). */
export const TOOL_DECLARATIONS: ToolDeclaration[] = [
  {
    name: 'listar_politicas',
    title: 'Listar políticas de crédito',
    description: 'Lista as políticas de crédito da organização (a versão mais recente de cada), com id, nome, tipo de documento e regras. Use o id em criar_relatorio.',
    route: { method: 'get', path: '/credit-policy/policy' },
  },
  {
    name: 'ler_politica',
    title: 'Ler uma política de crédito',
    description: 'Uma política de crédito na versão mais recente: regras, pontuação e faixas de decisão.',
    route: { method: 'get', path: '/credit-policy/policy/:id' },
  },
  {
    name: 'criar_relatorio',
    title: 'Criar relatório e aguardar a decisão',
    description:
      'Pede a análise de um CPF ou CNPJ sob uma política de crédito e aguarda (até aguardarSegundos, padrão 60) as fontes responderem e a política decidir. ' +
      'Devolve o relatório com status, decisão (policyStatus), seções e pontuação; se o prazo acabar antes, devolve o relatório ainda pendente: leia-o depois com ler_relatorio.',
    route: { method: 'post', path: '/v2/report' },
    extra: { aguardarSegundos: Type.Integer({ minimum: 0, maximum: WAIT_MAX_SECONDS, default: WAIT_DEFAULT_SECONDS, description: 'quanto esperar pela decisão, em segundos (0: não esperar)' }) },
    settle: untilFinalized,
  },
  {
    name: 'listar_relatorios',
    title: 'Listar relatórios',
    description: 'Os relatórios da organização, do mais novo ao mais antigo, filtrados por documento, externalId, status e período, paginados.',
    route: { method: 'get', path: '/v2/report' },
  },
  {
    name: 'ler_relatorio',
    title: 'Ler um relatório',
    description: 'Um relatório: status, decisão da política (policyStatus), pontuação, progresso e as seções com os dados de cada fonte.',
    route: { method: 'get', path: '/v2/report/:id' },
  },
  {
    name: 'ler_explicacao',
    title: 'Explicação da decisão',
    description: 'A seção CREDIT_POLICY de um relatório: cada regra da política com os fatos que leu e o resultado, os fatores da pontuação e a decisão.',
    route: { method: 'get', path: '/report/:id/section/:sectionType' },
    fixed: { sectionType: 'CREDIT_POLICY' },
  },
  {
    name: 'ler_decisoes',
    title: 'Decisões do relatório',
    description: 'As decisões de um relatório, da mais antiga à mais nova: a da política e cada análise manual.',
    route: { method: 'get', path: '/report/:id/decisions' },
  },
  {
    name: 'ler_insights_e_comite',
    title: 'Pareceres e comitê',
    description: 'Os pareceres de IA por seção e a deliberação do comitê de crédito (síntese, alçada, divergências) de um relatório.',
    route: { method: 'get', path: '/report/:id/insights' },
  },
  {
    name: 'criar_proposta',
    title: 'Criar proposta',
    description: 'Cria uma proposta de crédito em DRAFT para um CPF ou CNPJ, com portfólio, valor e prazo pedidos.',
    route: { method: 'post', path: '/v1/proposals' },
  },
  {
    name: 'listar_propostas',
    title: 'Listar propostas',
    description: 'As propostas da organização, da mais nova à mais antiga, com filtros.',
    route: { method: 'get', path: '/v1/proposals' },
  },
  {
    name: 'ler_proposta',
    title: 'Ler uma proposta',
    description: 'Uma proposta: status, ofertas por rodada, execuções, participantes e linha do tempo.',
    route: { method: 'get', path: '/v1/proposals/:id' },
  },
  {
    name: 'simular_preco',
    title: 'Simular operação de crédito',
    description: 'Simula uma operação de crédito: cada parcela, IOF, tarifas, totais e CET (mensal e anual). Não grava nada.',
    route: { method: 'post', path: '/v1/pricing/simulate' },
  },
  {
    name: 'listar_coletas',
    title: 'Listar coletas',
    description: 'As coletas de documentos, verificações e assinaturas da organização, da mais nova à mais antiga.',
    route: { method: 'get', path: '/v1/collections' },
  },
  {
    name: 'ler_coleta',
    title: 'Status de uma coleta',
    description: 'Uma coleta com seus itens, destinatários, o resumo cadastral e os eventos mais recentes.',
    route: { method: 'get', path: '/v1/collections/:id' },
  },
  {
    name: 'ler_trilha_coleta',
    title: 'Trilha de auditoria da coleta',
    description: 'A trilha de auditoria de uma coleta, da entrada mais antiga à mais nova, cada uma com número de sequência e hash.',
    route: { method: 'get', path: '/v1/collections/:id/trail' },
  },
  {
    name: 'listar_listas_triagem',
    title: 'Listas de sanções e PEP',
    description:
      'As listas de sanções e de pessoas politicamente expostas contra as quais os relatórios são verificados: a versão em uso de cada uma (data de publicação, SHA-256, entradas, quando foi carregada), a última falha de carga e o limiar de semelhança de nomes.',
    route: { method: 'get', path: '/v1/screening/lists' },
  },
];
