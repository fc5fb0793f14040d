import { accessSync, constants, mkdirSync } from 'node:fs';
import { userInfo } from 'node:os';
import { resolve } from 'node:path';
import type { Static } from 'typebox';
import { Compile } from 'typebox/compile';
import { Value } from 'typebox/value';
import { ConfigSchema, type Config } from './schema.ts';
import { ConfigurationError } from './secrets.ts';

export { type Config } from './schema.ts';
export { ConfigurationError, LEGACY_KID, keyringFor, loadAllKeyrings, loadOrCreateSecret, purposeKey, type Key, type Keyring } from './secrets.ts';

const compiled = Compile(ConfigSchema);

/** Where the links the service hands out point when PUBLIC_BASE_URL is unset: this process's own listener. */
export function publicBaseUrl(host: string, port: number): string {
  const wildcard = host === '' || host === '0.0.0.0' || host === '::';
  const name = wildcard ? 'localhost' : host.includes(':') ? `[${host}]` : host;
  return `http://${name}:${port}`;
}

/** Build the typed configuration from an environment (process.env by default); throws ConfigurationError on bad values. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const raw: Record<string, unknown> = {};
  for (const key of Object.keys(ConfigSchema.properties)) {
    const value = env[key];
    if (value !== undefined && value !== '') raw[key] = value;
  }
  const withDefaults = Value.Default(ConfigSchema, Value.Convert(ConfigSchema, raw));
  if (!compiled.Check(withDefaults)) {
    const problems = [...compiled.Errors(withDefaults)].map((e) => `${e.instancePath.slice(1) || '(root)'} ${e.message}`);
    throw new ConfigurationError(`Invalid configuration: ${problems.join('; ')}`);
  }
  const config = withDefaults as Static<typeof ConfigSchema>;
  return {
    ...config,
    DATA_DIR: resolve(config.DATA_DIR),
    EMBEDDED_PG_SYSTEM_DIR: resolve(config.EMBEDDED_PG_SYSTEM_DIR),
    PUBLIC_BASE_URL: config.PUBLIC_BASE_URL ?? publicBaseUrl(config.HOST, config.PORT),
  };
}

/** Create DATA_DIR if needed and make sure this process can write in it, or say how to fix it. */
export function prepareDataDir(dataDir: string): void {
  try {
    mkdirSync(dataDir, { recursive: true });
    accessSync(dataDir, constants.W_OK | constants.X_OK);
  } catch (error) {
    throw new ConfigurationError(`DATA_DIR ${dataDir} cannot be used (${(error as Error).message}); fix: set DATA_DIR to a folder that user ${userInfo().username} can create and write`);
  }
}

export function parseDurationList(text: string): number[] {
  return text
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)
    .map((part) => {
      const match = /^(\d+)(ms|s|m)?$/.exec(part);
      if (!match) throw new Error(`Invalid duration: ${part}`);
      const n = Number(match[1]);
      return match[2] === 'm' ? n * 60_000 : match[2] === 'ms' ? n : n * 1000;
    });
}
