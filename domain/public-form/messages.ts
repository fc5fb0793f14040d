/** The public form's own Portuguese texts (the spec gives none): ours. */
export const PublicFormMessages = {
  title: 'Envio de documentos',
  unavailableTitle: 'Formulário indisponível',
  notFound: 'Este formulário não existe ou foi desativado.',
  ceilingReached: 'Este formulário atingiu o limite de solicitações de hoje. Tente novamente amanhã.',
  tooManyFromAddress: 'Limite de requisições excedido. Muitas solicitações deste endereço: tente novamente mais tarde.',
  fixErrors: 'Corrija os campos indicados e envie novamente.',
  nameRequired: 'Informe o nome completo (de 2 a 120 caracteres).',
  documentInvalid: 'Informe um CPF ou CNPJ válido.',
  emailInvalid: 'Informe um e-mail válido.',
  phoneInvalid: 'Informe um telefone válido com DDD, por exemplo (11) 99999-8888.',
} as const;
