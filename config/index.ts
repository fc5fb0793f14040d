import { resolve } from 'node:path';
import { Compile } from 'typebox/compile';
import { Value } from 'typebox/value';
import { ConfigSchema, type Config } from './schema.ts';

export { type Config } from './schema.ts';
export { ConfigurationError, LEGACY_KID, keyringFor, loadAllKeyrings, loadOrCreateSecret, type Key, type Keyring } from './secrets.ts';

const compiled = Compile(ConfigSchema);

/** Build the typed configuration from an environment (process.env by default); throws on bad values. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const raw: Record<string, unknown> = {};
  for (const key of Object.keys(ConfigSchema.properties)) {
    const value = env[key];
    if (value !== undefined && value !== '') raw[key] = value;
  }
  const withDefaults = Value.Default(ConfigSchema, Value.Convert(ConfigSchema, raw));
  if (!compiled.Check(withDefaults)) {
    const problems = [...compiled.Errors(withDefaults)].map((e) => `${e.instancePath.slice(1) || '(root)'} ${e.message}`);
    throw new Error(`Invalid configuration: ${problems.join('; ')}`);
  }
  const config = withDefaults as Config;
  return { ...config, DATA_DIR: resolve(config.DATA_DIR) };
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
