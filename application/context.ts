import type Logger from 'bunyan';
import type { Knex } from 'knex';
import type { Config } from '../config/index.ts';
import type { Module, Principal } from '../domain/identity/access.ts';
import type { EventStore, Position } from '../platform/eventstore/port.ts';
import type { Clock, IdGenerator } from '../platform/ids.ts';

/** Where a session token came in: the API's bearer header, or the web console's cookie. */
export type SessionChannel = 'api' | 'console';

/**
 * Turns a session token into the caller, or throws DomainError('unauthenticated'). A token serves
 * only the channel it was issued for: a console cookie is no bearer token (it was never meant for
 * scripts, and the console's forms carry CSRF protection the API does not need), nor the reverse.
 */
export interface Authenticator {
  verify(token: string, channel?: SessionChannel): Promise<Principal>;
  /**
   * Drop a session this process has just ended: other processes learn of it by the read model's
   * notice, this one must not wait for its own notice to refuse the token.
   */
  forget(sessionId: string): void;
  /** An organization's name and modules as the read model has them now (null: none), cached until it changes. */
  organization(organizationId: string): Promise<{ name: string; modules: Module[] } | null>;
  /** Release what it holds open (a listening connection). */
  close(): Promise<void>;
}

/** Counts a request against the caller's limits and tells what is left, or throws a 429. */
export interface RequestLimiter {
  consume(principal: Principal): Promise<{ limit: number; remaining: number; resetSeconds: number }>;
  /** Send what is still counted only here, and stop syncing. */
  close(): Promise<void>;
}

/**
 * What every command handler, query and route can reach. Built once per process by
 * service/bootstrap.ts; tests build it against their own database.
 */
export interface AppContext {
  config: Config;
  db: Knex;
  store: EventStore;
  log: Logger;
  clock: Clock;
  ids: IdGenerator;
  /**
   * Wait (bounded by READ_YOUR_WRITES_TIMEOUT_MS) until the named projections have applied
   * everything up to `position`, so the caller reads its own write. A null position returns at once.
   */
  readYourWrites(projections: readonly string[], position: Position | null): Promise<void>;
  authenticator: Authenticator;
  limiter: RequestLimiter;
}
