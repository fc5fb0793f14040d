import type { ExpectedDocumentType } from '../collection/enums.ts';

/**
 * The offline classification rules, first match wins: a type and the phrases (normalized) any of
 * which identifies it. More specific phrases come first (an amendment quotes the articles it
 * amends; a marriage certificate is a certificate). Published in docs/registry.md.
 */
export const CLASSIFICATION_RULES: ReadonlyArray<readonly [ExpectedDocumentType, readonly string[]]> = [
  ['ALTERACAO_CONTRATUAL', ['ALTERACAO CONTRATUAL', 'ALTERACAO DO CONTRATO SOCIAL']],
  ['CONTRATO_SOCIAL', ['CONTRATO SOCIAL']],
  ['ESTATUTO_SOCIAL', ['ESTATUTO SOCIAL']],
  ['REQUERIMENTO_EMPRESARIO', ['REQUERIMENTO DE EMPRESARIO']],
  ['ATA_ASSEMBLEIA', ['ATA DA ASSEMBLEIA', 'ATA DE ASSEMBLEIA']],
  ['CERTIDAO_QSA', ['QUADRO DE SOCIOS E ADMINISTRADORES', 'QSA']],
  ['CERTIDAO_JUNTA', ['JUNTA COMERCIAL']],
  ['IRPJ_ECF', ['ESCRITURACAO CONTABIL FISCAL', 'IRPJ']],
  ['DECLARACAO_FATURAMENTO', ['DECLARACAO DE FATURAMENTO']],
  ['CERTIFICADO_SIMPLES_NACIONAL', ['SIMPLES NACIONAL']],
  ['DEMONSTRACOES_FINANCEIRAS', ['BALANCO PATRIMONIAL', 'DEMONSTRACAO DO RESULTADO', 'DEMONSTRACOES FINANCEIRAS']],
  ['EXTRATO_BANCARIO', ['EXTRATO BANCARIO', 'EXTRATO DE CONTA', 'EXTRATO CONTA CORRENTE']],
  ['CERTIDAO_PGFN_PJ', ['TRIBUTOS FEDERAIS', 'PROCURADORIA-GERAL DA FAZENDA NACIONAL']],
  ['CERTIDAO_FGTS', ['FGTS']],
  ['CADIN_ESTADUAL', ['CADIN ESTADUAL']],
  ['CADIN_FEDERAL', ['CADIN']],
  ['ESOCIAL_PJ', ['ESOCIAL']],
  ['DOC_IDENTIDADE', ['CARTEIRA DE IDENTIDADE', 'REGISTRO GERAL', 'CARTEIRA NACIONAL DE HABILITACAO']],
  ['COMPROVANTE_RESIDENCIA', ['COMPROVANTE DE RESIDENCIA', 'COMPROVANTE DE ENDERECO', 'CONTA DE ENERGIA', 'CONTA DE AGUA']],
  ['DIRPF', ['IMPOSTO SOBRE A RENDA - PESSOA FISICA', 'DIRPF']],
  ['COMPROVANTE_RENDA', ['COMPROVANTE DE RENDA', 'HOLERITE', 'CONTRACHEQUE', 'DEMONSTRATIVO DE PAGAMENTO']],
  ['COMPROVACAO_ESTADO_CIVIL', ['CERTIDAO DE CASAMENTO', 'CERTIDAO DE NASCIMENTO', 'UNIAO ESTAVEL']],
  ['PROCURACAO_PJ', ['PROCURACAO PESSOA JURIDICA']],
  ['PROCURACAO_PF', ['PROCURACAO']],
  ['CERTIDAO_PF', ['CERTIDAO']],
];

/** The first rule whose phrase the text contains (whole words), or null. */
export function classify(normalized: string): ExpectedDocumentType | null {
  const padded = ` ${normalized.replace(/[^A-Z0-9-]+/g, ' ')} `;
  for (const [type, phrases] of CLASSIFICATION_RULES) if (phrases.some((p) => padded.includes(` ${p} `))) return type;
  return null;
}
