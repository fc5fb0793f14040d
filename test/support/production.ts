import { randomBytes } from 'node:crypto';
import { generateP12 } from '../../application/collection/signed-document/certificate.ts';

const keys = (kid: string) => `${kid}:${randomBytes(48).toString('base64url')}`;

/**
 * What a `DEPLOYMENT=production` service is started with in a test: a real provider named for every
 * part (none is called unless the test drives it), the secrets given rather than generated, a
 * configured PKCS#12 and webhooks kept off private networks, so that `productionRefusals` is empty.
 * Given to `startTestApp`, which adds the test database's DATABASE_URL.
 */
export function productionEnv(): Record<string, string> {
  return {
    DEPLOYMENT: 'production',
    SOURCES: 'brasilapi',
    IDENTITY_PROVIDER: 'facepp',
    FACEPP_API_KEY: 'chave-de-teste',
    FACEPP_API_SECRET: 'segredo-de-teste',
    LLM_PROVIDER: 'anthropic',
    LLM_MODEL: 'claude-de-teste',
    LLM_API_KEY: 'chave-de-teste',
    WEB_SEARCH_PROVIDER: 'searxng',
    WEB_SEARCH_URL: 'http://127.0.0.1:9/busca',
    SMTP_URL: 'smtp://127.0.0.1:9',
    WHATSAPP_PROVIDER: 'cloud-api',
    WHATSAPP_PHONE_NUMBER_ID: '100000000000001',
    WHATSAPP_TOKEN: 'token-de-teste',
    WHATSAPP_APP_SECRET: 'segredo-do-app',
    SIGNING_P12_BASE64: generateP12('senha-da-p12').toString('base64'),
    SIGNING_P12_PASSWORD: 'senha-da-p12',
    JWT_KEYS: keys('jwt1'),
    SEALING_KEYS: keys('seal1'),
    DOWNLOAD_URL_KEYS: keys('down1'),
    PERSONAL_DATA_PEPPER: randomBytes(32).toString('base64url'),
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'false',
  };
}
