import type { Migration } from './migrate.ts';
import { projectionMigrations } from '../../projections/migrations.ts';

/** Every module's migrations. Add a module's list here; order comes from the names. */
export const migrations: Migration[] = [...projectionMigrations];
