import type { Knex } from 'knex';
import type { Config } from '../../../config/index.ts';
import { configuredLists } from '../../screening/refresh.ts';
import { Screening } from '../../screening/screening.ts';
import { BrasilApiCatalog } from './brasilapi.ts';
import type { SourceCatalog } from './port.ts';
import { SandboxCatalog } from './sandbox.ts';
import { ScreeningCatalog } from './screening.ts';

/** The sources the configuration names (SOURCES), with SANCTIONS and the PEP flag from the screening lists. */
export function createSourceCatalog(config: Config, db: Knex): SourceCatalog {
  const sandbox = new SandboxCatalog();
  const base = config.SOURCES === 'brasilapi' ? new BrasilApiCatalog(config.BRASILAPI_URL, sandbox) : sandbox;
  const screening = new Screening(
    db,
    configuredLists(config).map(({ list }) => list),
    config.SCREENING_NAME_THRESHOLD,
  );
  return new ScreeningCatalog(base, screening);
}
