import { trailReadMigrations } from '../../../projections/collection/trail-migrations.ts';
import { trailKeyMigrations } from './keys.ts';

/** The trail's tables and its signing keys, registered as one list. */
export const collectionTrailMigrations = [...trailReadMigrations, ...trailKeyMigrations];
