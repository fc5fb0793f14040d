/**
 * The contract's Portuguese texts, in one place. These strings are part of the public contract
 * (integrators match on them): never reword one. Texts the spec leaves to us are marked "ours".
 */
export const Messages = {
  // General
  internalError: 'Internal server error',
  invalidToken: 'Token de acesso inválido.',
  expiredToken: 'Token expirado.',
  forbidden: 'Você não tem permissão para acessar este recurso.',
  resourceNotFound: 'Recurso não encontrado.',
  recordNotFound: 'Registro não encontrado.',
  rateLimited: 'Limite de requisições excedido.',
  invalidCredentials: 'Credenciais inválidas.',
  invalidId: 'O identificador informado não é válido.', // ours: id not 24 hex characters
  malformedJson: 'O corpo da requisição não é um JSON válido.', // ours
  bodyTooLarge: 'O corpo da requisição é grande demais.', // ours
  routeNotFound: 'Rota não encontrada.', // ours
  methodNotAllowed: 'Método não permitido.', // ours

  // Authentication
  invalidClientId: 'ClientId inválido.',
  invalidClientSecret: 'ClientSecret inválido.',
  tooManyFailedSecrets: 'Muitas tentativas com ClientSecret inválido. Tente novamente mais tarde.', // ours
  nameRequired: 'O nome é obrigatório.', // ours: organization or user without a name
  unknownModule: 'Módulo desconhecido.', // ours
  unknownPermission: 'Permissão desconhecida.', // ours
  alreadyExists: 'O registro já existe.', // ours: an id used twice
  invalidEmail: 'E-mail inválido.', // ours
  emailInUse: 'Este e-mail já pertence a outro usuário.', // ours: e-mail addresses are logins, one user each
  passwordNeedsEmail: 'Cadastre um e-mail para o usuário antes de definir a senha.', // ours
  passwordLength: 'A senha deve ter de 10 a 128 caracteres.', // ours
  passwordMismatch: 'A confirmação não é igual à nova senha.', // ours
  wrongLogin: 'E-mail, senha ou código de verificação inválidos.', // ours: never says which was wrong
  wrongTotpCode: 'O código de verificação não confere ou já foi usado.', // ours
  totpAlreadyOn: 'A verificação em duas etapas já está ativada.', // ours
  totpNotOn: 'A verificação em duas etapas não está ativada.', // ours
  wrongCurrentPassword: 'A senha atual não confere.', // ours
  tooManyFailedLogins: 'Muitas tentativas de entrar sem sucesso. Tente novamente mais tarde.', // ours
  tooManyFailuresFromAddress: 'Muitas tentativas sem sucesso a partir deste endereço. Tente novamente mais tarde.', // ours
  tooManyClientRegistrations: 'Muitos aplicativos registrados a partir deste endereço. Tente novamente mais tarde.', // ours
  foreignOrigin: 'Origem da requisição não permitida.', // ours
  invalidCsrf: 'O formulário expirou ou não veio desta página. Recarregue a página e tente de novo.', // ours

  // Module gates
  proposalsModuleDisabled: 'Sua organização não tem o módulo de Propostas habilitado.',
  inputDataModulesDisabled: 'Estas rotas exigem um dos módulos Propostas, Onboarding ou Formalização habilitado.', // spec paraphrase
  planWithoutReportType: 'Plano sem permissão para este tipo de relatório.',

  // Reports and policies
  invalidDocument: 'Documento inválido.',
  invalidDocumentType: 'Tipo de documento inválido.',
  invalidPolicyId: 'policyId inválido.',
  policyNotFound: 'Política não encontrada.',
  reportNotFound: 'Report not found',
  reportNotFoundPt: 'Relatório não encontrado',
  reanalyzeForbidden: 'Usuário não tem permissão para refazer análise manual.',
  committeeNotFound: 'Nenhuma deliberação do comitê encontrada para este relatório.',
  policyOtherDocumentType: 'A política informada é de outro tipo de documento e não pode analisar este documento.', // ours
  policyArchived: 'Esta política está arquivada.', // ours
  policyDocumentTypeChange: 'O tipo de documento de uma política não pode mudar; crie uma nova política.', // ours
  policyVersionNotFound: 'Versão da política não encontrada.', // ours
  reportStillProcessing: 'O relatório ainda está em processamento.', // ours
  manualAnalysisExists: 'Este relatório já tem análise manual; para refazê-la use POST /report/re-analyze.', // ours
  manualAnalysisMissing: 'Este relatório ainda não tem análise manual; a primeira decisão humana é feita em POST /report/analyze.', // ours
  sectionNotFound: 'Seção não encontrada.', // ours
  reportExportFailed: 'Não foi possível exportar o relatório.', // ours, in the spec's 502 style
  downloadLinkInvalid: 'Link de download inválido ou expirado.', // ours
  policyAlreadyExists: 'Esta política já existe.', // ours: a repeated create with the same id
  reportAlreadyExists: 'Este relatório já existe.', // ours: a repeated request with the same id

  // Webhooks
  invalidWebhookUrl: 'URL de webhook inválida.',
  idShouldNotBeEmpty: 'id should not be empty',

  // Collections
  collectionNotFound: 'Solicitação não encontrada.',
  collectionClosed: 'Esta solicitação já está encerrada.',
  collectionCancelFailed: 'Não foi possível cancelar a solicitação.',
  templateNotFound: 'Modelo não encontrado',

  // Proposals
  proposalNotFound: 'Proposta não encontrada.',
  offerAlreadyChosen: 'Esta oferta já foi escolhida.',
  inputDataLoadFailed: 'Não foi possível carregar os dados de entrada da proposta.',
  catalogLoadFailed: 'Não foi possível carregar os dados de entrada.',
  invalidTemplate: 'O modelo informado não é válido.',
  invalidProduct: 'O produto informado não é válido.',

  // Financial upload
  uploadKeyInvalid: 'Key de upload inválida.',
  uploadFileMissing: 'Arquivo não encontrado no armazenamento. Refaça o upload.',
  uploadFileTooLarge: 'Arquivo maior que 50MB.',
  uploadFileEmpty: 'Arquivo vazio ou corrompido.',
  uploadNotPdf: 'Apenas arquivos PDF válidos são aceitos.',
  presignOnlyPdf: 'Apenas arquivos PDF são aceitos.',

  // Dashboard
  dashboardBadFrom: 'A data inicial precisa estar no formato ISO.',
  dashboardBadTo: 'A data final precisa estar no formato ISO.',
  dashboardToBeforeFrom: 'A data final precisa ser depois da data inicial.',
  dashboardMaxPeriod: 'O período máximo é de 366 dias.',
  dashboardLoadFailed: 'Não foi possível carregar o painel gerencial.',
  dashboardExportFailed: 'Não foi possível exportar o painel gerencial.',

  // Concurrency and failed work (ours)
  concurrentUpdate: 'Este registro foi alterado por outra operação ao mesmo tempo. Tente novamente.',
  reportProcessingFailed: 'Não foi possível concluir o processamento do relatório. Solicite um novo relatório.',
  // Projection faults
  reportNotProcessed: 'O relatório não pôde ser processado: um evento dele foi separado para análise da equipe técnica. Solicite um novo relatório ou tente mais tarde.',
  // Requests the HTTP layer cannot read (issue 15): every one answers {code, message}
  jsonTooDeep: 'O corpo da requisição passa de 64 níveis de aninhamento.', // ours: http/validation.ts MAX_JSON_DEPTH
  unsupportedMediaType: 'O corpo da requisição precisa ser JSON (Content-Type: application/json).', // ours: 415
  unsupportedCharset: 'O corpo da requisição precisa estar em UTF-8.', // ours: 415, a charset other than utf-8
  unsupportedContentEncoding: 'Content-Encoding não suportado; use gzip, deflate, br ou identity.', // ours: 415
  bodyNotDecodable: 'O corpo da requisição não pôde ser descompactado conforme o Content-Encoding informado.', // ours: 400
  headersTooLarge: 'A URL ou os cabeçalhos da requisição são grandes demais.', // ours: 431
  malformedRequest: 'A requisição HTTP está malformada.', // ours: 400 from the HTTP parser
  requestTimeout: 'A requisição demorou demais para chegar por completo.', // ours: 408
  methodNotImplemented: 'Método HTTP não suportado.', // ours: 501, a method no route knows
} as const;
