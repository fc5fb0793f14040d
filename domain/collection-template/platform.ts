import type { CollectionTemplate, TemplateItem } from './template.ts';

/**
 * Templates the service provides to every organization. They live in code, not in a stream: every
 * organization sees the same definition, and only the switch (on/off) is per organization. A
 * change to one is a new `version` here; collections copy the definition when they are created,
 * so one already sent keeps the version it was made from.
 */
export type PlatformTemplate = Omit<CollectionTemplate, 'enabled'>;

const document = (key: string, expectedType: TemplateItem['expectedType'], title: string, instructions: string, extra: Partial<TemplateItem> = {}): TemplateItem => ({
  key,
  kind: 'DOCUMENT',
  title,
  expectedType,
  required: true,
  instructions,
  ...extra,
});

const noCompletion = { kind: 'NONE', id: null } as const;

export const PLATFORM_TEMPLATES: readonly PlatformTemplate[] = [
  {
    templateId: '000000000000000000000a01',
    slug: 'company-onboarding',
    name: 'Cadastro de empresa',
    description: 'Documentos para o cadastro de uma empresa: atos constitutivos, endereço, sócios e movimentação bancária.',
    scope: 'PLATFORM',
    version: 1,
    items: [
      // One item names one expected type: the articles are required, the latest amendment asked beside them.
      document('contrato-social', 'CONTRATO_SOCIAL', 'Contrato social', 'Envie o contrato social consolidado da empresa, com todas as páginas.', { appliesTo: 'PJ' }),
      document('alteracao-contratual', 'ALTERACAO_CONTRATUAL', 'Última alteração contratual', 'Se houve alteração após o contrato social, envie a última alteração contratual registrada.', {
        appliesTo: 'PJ',
        required: false,
      }),
      document(
        'comprovante-endereco-empresa',
        'COMPROVANTE_RESIDENCIA',
        'Comprovante de endereço da empresa',
        'Conta de consumo ou documento oficial em nome da empresa, emitido nos últimos 90 dias.',
        {
          appliesTo: 'PJ',
        },
      ),
      document('documento-socios', 'DOC_IDENTIDADE', 'Documento de identidade dos sócios', 'Documento oficial com foto (RG, CNH ou passaporte) de cada sócio, frente e verso.', {
        appliesTo: 'PJ',
      }),
      document('extrato-bancario', 'EXTRATO_BANCARIO', 'Extratos bancários', 'Extratos da conta principal da empresa dos últimos 3 meses, em PDF emitido pelo banco.', { appliesTo: 'PJ' }),
    ],
    resolutionMode: 'REVIEW',
    notificationChannel: 'EMAIL',
    expiryDays: 15,
    reminderDays: [3, 7, 12],
    onCompleted: noCompletion,
    publicForm: false,
  },
  {
    templateId: '000000000000000000000a02',
    slug: 'person-onboarding',
    name: 'Cadastro de pessoa física',
    description: 'Documentos para o cadastro de uma pessoa: identidade, endereço e renda.',
    scope: 'PLATFORM',
    version: 1,
    items: [
      document('documento-identidade', 'DOC_IDENTIDADE', 'Documento de identidade', 'Documento oficial com foto (RG, CNH ou passaporte), frente e verso.', { appliesTo: 'PF' }),
      document('comprovante-residencia', 'COMPROVANTE_RESIDENCIA', 'Comprovante de residência', 'Conta de consumo ou documento oficial em seu nome, emitido nos últimos 90 dias.', { appliesTo: 'PF' }),
      document('comprovante-renda', 'COMPROVANTE_RENDA', 'Comprovante de renda', 'Holerite, declaração de imposto de renda ou extrato de benefício mais recente.', { appliesTo: 'PF' }),
    ],
    resolutionMode: 'AUTOMATIC',
    notificationChannel: 'EMAIL',
    expiryDays: 7,
    reminderDays: [2, 5],
    onCompleted: noCompletion,
    publicForm: false,
  },
  {
    templateId: '000000000000000000000a03',
    slug: 'kyc-refresh',
    name: 'Atualização cadastral (KYC)',
    description: 'Renovação periódica do cadastro de um cliente já conhecido, pessoa física ou empresa.',
    scope: 'PLATFORM',
    version: 1,
    items: [
      document('comprovante-endereco', 'COMPROVANTE_RESIDENCIA', 'Comprovante de endereço atualizado', 'Conta de consumo ou documento oficial emitido nos últimos 90 dias.'),
      document('documento-identidade', 'DOC_IDENTIDADE', 'Documento de identidade', 'Documento oficial com foto dentro da validade, frente e verso.', { appliesTo: 'PF' }),
      document('alteracao-contratual', 'ALTERACAO_CONTRATUAL', 'Alteração contratual', 'Se o contrato social mudou desde o último cadastro, envie a última alteração registrada.', {
        appliesTo: 'PJ',
        required: false,
      }),
    ],
    resolutionMode: 'AUTOMATIC',
    notificationChannel: 'EMAIL',
    expiryDays: 30,
    reminderDays: [7, 14, 21],
    onCompleted: noCompletion,
    publicForm: false,
  },
];

export const platformTemplate = (slug: string): PlatformTemplate | undefined => PLATFORM_TEMPLATES.find((t) => t.slug === slug);
