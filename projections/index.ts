import type { Projection } from './projection.ts';

/** Every read model of the service. A module adds its projections here. */
export const allProjections: Projection[] = [];
