import type { RouteTable } from './route.ts';

/** Every router of the service, one per module. A module adds its table here. */
export const routeTables: RouteTable[] = [];
