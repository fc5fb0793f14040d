import { DomainError } from '../shared/errors.ts';
import { Messages } from '../shared/messages.ts';
import { LEGACY_TYPES } from './catalog.ts';
import type { AttemptOutcome } from './retry-policy.ts';
import { MAX_URL_LENGTH, type UrlProblem } from './url.ts';

/**
 * Texts of the webhook module that the spec leaves to us ("ours"); contract texts stay in
 * domain/shared/messages.ts.
 */
export const WebhookMessages = {
  /** The legacy DELETE's 404: the spec calls it a data-layer text saying the record to delete does not exist. */
  recordToDeleteNotFound: 'Record to delete does not exist.',
  subscriptionNotFound: 'Assinatura de webhook não encontrada.',
  deliveryNotFound: 'Entrega de webhook não encontrada.',
  noEvents: 'events must contain at least 1 elements',
  unknownEvent: (name: string) => `Evento de webhook desconhecido: ${name}.`,
  nothingToUpdate: 'Informe url, events ou description.',
  subscriptionDisabled: 'A assinatura de webhook está desativada.',
  /** Body of the test POST sent before a legacy subscription is saved. */
  testMessage: 'Teste de webhook: se você recebeu esta mensagem, a URL está pronta para receber eventos.',
} as const;

const URL_PROBLEMS: Record<UrlProblem, string> = {
  length: `A URL está vazia ou passa de ${MAX_URL_LENGTH} caracteres.`,
  malformed: 'O texto informado não é uma URL absoluta.',
  scheme: 'A URL precisa começar com http:// ou https://.',
  credentials: 'A URL não pode conter usuário e senha.',
  port: 'A porta da URL precisa estar entre 1 e 65535.',
};

/** ipaddr.js range names of the addresses we refuse, in words; the others are "reserved". */
const RANGES: Record<string, string> = {
  loopback: 'O endereço de destino é de loopback (a própria máquina).',
  private: 'O endereço de destino é de uma rede privada.',
  uniqueLocal: 'O endereço de destino é de uma rede privada IPv6.',
  linkLocal: 'O endereço de destino é link-local (onde fica o serviço de metadados da nuvem).',
  unspecified: 'O endereço de destino não é especificado (0.0.0.0 ou ::).',
  carrierGradeNat: 'O endereço de destino é de NAT de operadora (100.64.0.0/10).',
  multicast: 'O endereço de destino é de multicast.',
  broadcast: 'O endereço de destino é de broadcast.',
};
const IPV6_CARRYING_IPV4 = new Set(['ipv4Mapped', 'ipv4Compatible', 'rfc6145', 'rfc6052', '6to4', 'teredo']);

function addressReason(range: string): string {
  if (IPV6_CARRYING_IPV4.has(range)) return `O endereço IPv6 de destino carrega um endereço IPv4 (${range}), o que não é aceito.`;
  return RANGES[range] ?? `O endereço de destino está numa faixa reservada (${range}).`;
}

function networkReason(code: string | null | undefined): string {
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'ENODATA') return 'O nome do servidor da URL não foi encontrado no DNS.';
  if (code === 'ECONNREFUSED') return 'O servidor da URL recusou a conexão.';
  if (code && /CERT|TLS|SSL|SELF_SIGNED/.test(code)) return `O certificado TLS do servidor da URL não é válido (${code}).`;
  return `Não foi possível conectar ao servidor da URL (${code ?? 'falha de rede'}).`;
}

/** A refused registration: the contract's text alone in `message`, the rule that refused it in `detail`. */
const refused = (detail: string): DomainError => new DomainError('invalid', Messages.invalidWebhookUrl, { detail });

/**
 * Refusals of a webhook url or type. The contract fixes the message (`URL de webhook inválida.`)
 * exactly, so why it was refused travels beside it, in `detail`.
 */
export const Refusals = {
  missingUrl: () => refused('Informe a url.'),
  url: (problem: UrlProblem) => refused(URL_PROBLEMS[problem]),
  address: (range: string) => refused(addressReason(range)),
  legacyType: () => refused(`O tipo precisa ser um de: ${LEGACY_TYPES.join(', ')}.`),
  /** The legacy test POST did not get a 2xx. */
  testPost(outcome: AttemptOutcome, timeoutMs: number): DomainError {
    const because =
      outcome.failure === 'refused' && outcome.refusedRange
        ? addressReason(outcome.refusedRange)
        : outcome.failure === 'timeout'
          ? `O teste enviado à URL não foi respondido em ${timeoutMs} ms.`
          : outcome.failure === 'redirect'
            ? `O teste enviado à URL foi respondido com redirecionamento (HTTP ${outcome.statusCode}), que não é seguido.`
            : outcome.failure === 'http'
              ? `O teste enviado à URL foi respondido com HTTP ${outcome.statusCode}; é preciso um 2xx.`
              : networkReason(outcome.errorCode);
    return refused(because);
  },
};
