import type { AppContext } from './context.ts';

export type Role = 'api' | 'projector' | 'dispatcher' | 'scheduler';
export const ROLES: readonly Role[] = ['api', 'projector', 'dispatcher', 'scheduler'];

/**
 * A background part of the service that runs under one role: a process manager (projector),
 * the webhook dispatcher (dispatcher), a cron job (scheduler). Singletons take an advisory lock
 * themselves; workers that may run in several processes claim rows with SKIP LOCKED.
 */
export interface Worker {
  name: string;
  role: Exclude<Role, 'api'>;
  start(app: AppContext): Promise<void>;
  /** Finish what is in flight, then stop. */
  stop(): Promise<void>;
}
