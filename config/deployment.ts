import type { Config } from './schema.ts';

/**
 * What a `DEPLOYMENT=production` start refuses, and what a sandbox start warns about: every
 * setting that makes the service produce sandbox or offline results, or run on parts meant for a
 * laptop. The embedded defaults rightly need no accounts; production must never run on them.
 */
interface SandboxSetting {
  /** The provider or part, as /ready and the start-up warning name it. */
  part: string;
  applies: (config: Config) => boolean;
  /** One line: what is wrong and the fix. */
  refusal: string;
}

const SANDBOX_SETTINGS: SandboxSetting[] = [
  {
    part: 'credit sources (SOURCES=sandbox)',
    applies: (c) => c.SOURCES === 'sandbox',
    refusal: 'SOURCES=sandbox invents the data of every section; fix: set SOURCES to a real provider (brasilapi)',
  },
  {
    part: 'identity checks (IDENTITY_PROVIDER=sandbox)',
    applies: (c) => c.IDENTITY_PROVIDER === 'sandbox',
    refusal: 'IDENTITY_PROVIDER=sandbox takes its verdict from markers in the images; fix: set IDENTITY_PROVIDER=facepp with FACEPP_API_KEY and FACEPP_API_SECRET',
  },
  {
    part: 'language model (LLM_PROVIDER=offline)',
    applies: (c) => c.LLM_PROVIDER === 'offline',
    refusal: 'LLM_PROVIDER=offline answers opinions and committees with fixed rules; fix: set LLM_PROVIDER (openai-compatible or anthropic) with LLM_MODEL and LLM_API_KEY',
  },
  {
    part: 'web search (WEB_SEARCH_PROVIDER=offline)',
    applies: (c) => c.WEB_SEARCH_PROVIDER === 'offline',
    refusal: "WEB_SEARCH_PROVIDER=offline leaves the committee's Cadastral agent without a search; fix: set WEB_SEARCH_PROVIDER=searxng and WEB_SEARCH_URL",
  },
  {
    part: 'e-mail (SMTP_URL unset)',
    applies: (c) => !c.SMTP_URL,
    refusal: 'SMTP_URL is unset, so no e-mail leaves the machine; fix: set SMTP_URL (smtp://user:pass@host:587 or smtps://...)',
  },
  {
    part: 'WhatsApp (WHATSAPP_PROVIDER=sandbox)',
    applies: (c) => c.WHATSAPP_PROVIDER === 'sandbox',
    refusal: 'WHATSAPP_PROVIDER=sandbox only records messages; fix: set WHATSAPP_PROVIDER=cloud-api with WHATSAPP_PHONE_NUMBER_ID, WHATSAPP_TOKEN and WHATSAPP_APP_SECRET',
  },
  {
    part: 'SMS (SMS_PROVIDER=sandbox)',
    applies: (c) => c.SMS_PROVIDER === 'sandbox',
    refusal:
      'SMS_PROVIDER=sandbox only records messages; fix: set SMS_PROVIDER=twilio with TWILIO_ACCOUNT_SID, TWILIO_AUTH_TOKEN and TWILIO_FROM or TWILIO_MESSAGING_SERVICE_SID, or SMS_PROVIDER=none',
  },
  {
    part: 'signing certificate (self-signed)',
    applies: (c) => !c.SIGNING_P12_PATH && !c.SIGNING_P12_BASE64,
    refusal: 'no SIGNING_P12_PATH or SIGNING_P12_BASE64, so signed PDFs carry a self-signed certificate; fix: set one of them (an ICP-Brasil A1 PKCS#12) and SIGNING_P12_PASSWORD',
  },
  ...(
    [
      ['JWT_KEYS', ['JWT_KEYS', 'JWT_KEYS_FILE', 'JWT_SECRET']],
      ['SEALING_KEYS', ['SEALING_KEYS', 'SEALING_KEYS_FILE']],
      ['DOWNLOAD_URL_KEYS', ['DOWNLOAD_URL_KEYS', 'DOWNLOAD_URL_KEYS_FILE']],
      ['PERSONAL_DATA_PEPPER', ['PERSONAL_DATA_PEPPER', 'PERSONAL_DATA_PEPPER_FILE']],
    ] as const
  ).map(([name, keys]) => ({
    part: `secret ${name} (generated into DATA_DIR)`,
    applies: (c: Config) => keys.every((key) => !c[key]),
    refusal: `${name} is not given, so it would be generated into DATA_DIR; fix: set ${name} or ${name}_FILE from your secret store`,
  })),
  {
    part: 'database (embedded PostgreSQL)',
    applies: (c) => !c.DATABASE_URL,
    refusal: 'DATABASE_URL is unset, so an embedded PostgreSQL would run in DATA_DIR; fix: set DATABASE_URL to a managed PostgreSQL',
  },
  {
    part: 'webhooks to private networks (WEBHOOK_ALLOW_PRIVATE_NETWORKS=true)',
    applies: (c) => c.WEBHOOK_ALLOW_PRIVATE_NETWORKS,
    refusal: 'WEBHOOK_ALLOW_PRIVATE_NETWORKS=true lets a tenant reach loopback and private addresses; fix: unset it',
  },
];

/** The parts of this configuration that produce sandbox results or are meant for a laptop, by name. */
export function sandboxParts(config: Config): string[] {
  return SANDBOX_SETTINGS.filter((s) => s.applies(config)).map((s) => s.part);
}

/** Why a production start is refused: one line per setting, each naming its fix; empty when it may start. */
export function productionRefusals(config: Config): string[] {
  if (config.DEPLOYMENT !== 'production') return [];
  return SANDBOX_SETTINGS.filter((s) => s.applies(config)).map((s) => `DEPLOYMENT=production refuses: ${s.refusal}`);
}

/**
 * Each provider the service runs on, by what it produces, and whether that one is a sandbox:
 * what /ready tells an operator (with OPS_TOKEN).
 */
export function providers(config: Config): Record<string, { provider: string; sandbox: boolean }> {
  const one = (provider: string, sandbox: boolean) => ({ provider, sandbox });
  return {
    creditSources: one(config.SOURCES, config.SOURCES === 'sandbox'),
    identityChecks: one(config.IDENTITY_PROVIDER, config.IDENTITY_PROVIDER === 'sandbox'),
    languageModel: one(config.LLM_PROVIDER, config.LLM_PROVIDER === 'offline'),
    webSearch: one(config.WEB_SEARCH_PROVIDER, config.WEB_SEARCH_PROVIDER === 'offline'),
    // The only document analyser is the keyword reader (docs/registry.md): its opinions are sandbox ones.
    documentAnalysis: one('offline-keywords', true),
    email: one(config.SMTP_URL ? 'smtp' : 'none', !config.SMTP_URL),
    whatsapp: one(config.WHATSAPP_PROVIDER, config.WHATSAPP_PROVIDER === 'sandbox'),
    sms: one(config.SMS_PROVIDER, config.SMS_PROVIDER === 'sandbox'),
    signingCertificate: one(config.SIGNING_P12_PATH || config.SIGNING_P12_BASE64 ? 'pkcs12' : 'self-signed', !config.SIGNING_P12_PATH && !config.SIGNING_P12_BASE64),
    database: one(config.DATABASE_URL ? 'postgresql' : 'embedded-postgresql', !config.DATABASE_URL),
  };
}
