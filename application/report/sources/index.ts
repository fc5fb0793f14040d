import type { Config } from '../../../config/index.ts';
import { BrasilApiCatalog } from './brasilapi.ts';
import type { SourceCatalog } from './port.ts';
import { SandboxCatalog } from './sandbox.ts';

/** The sources the configuration names (SOURCES). */
export function createSourceCatalog(config: Pick<Config, 'SOURCES' | 'BRASILAPI_URL'>): SourceCatalog {
  const sandbox = new SandboxCatalog();
  return config.SOURCES === 'brasilapi' ? new BrasilApiCatalog(config.BRASILAPI_URL, sandbox) : sandbox;
}
