import type { Knex } from 'knex';
import { principalFrom, type Module, type Principal } from '../../domain/identity/access.ts';
import { DomainError } from '../../domain/shared/errors.ts';
import { Messages } from '../../domain/shared/messages.ts';
import { IDENTITY_CHANGED_CHANNEL, findActiveSession, findOrganization, type ActiveSessionRow } from '../../projections/identity/queries.ts';
import type { Authenticator } from '../context.ts';
import type { Clock } from '../../platform/ids.ts';
import { NoticeListener } from '../../platform/database/notice-listener.ts';
import { verifySessionToken, type TokenKeys } from './tokens.ts';

const MAX_CACHED_SESSIONS = 10_000;

interface CachedSession {
  row: ActiveSessionRow;
  principal: Principal;
}

function cached(row: ActiveSessionRow): CachedSession {
  return { row, principal: principalFrom(row) };
}

/**
 * Live sessions as read from the identity read model, kept until the read model says otherwise.
 * Triggers on the identity tables NOTIFY on every change that can end a session or change what
 * it may do (the session's id for a session, '' for anything wider); every process LISTENs and
 * drops what the notice names. A notice is sent when the projection's transaction commits, which
 * is before a logout or a revocation answers, so a token refused in one process is refused in all.
 * Only while the listening connection is up is anything cached: a notice missed while it is down
 * could otherwise leave a revoked session in the cache. Organizations (their modules) are kept
 * the same way, for the workers that act for one without a caller's token.
 */
class SessionCache {
  private readonly sessions = new Map<string, CachedSession>();
  private readonly organizations = new Map<string, { name: string; modules: Module[] }>();
  /** Bumped by every notice: a lookup that began before one must not fill the cache after it. */
  private generation = 0;
  private readonly notices: NoticeListener;

  constructor(db: Knex) {
    this.notices = new NoticeListener(
      db,
      IDENTITY_CHANGED_CHANNEL,
      (payload) => this.forget(payload),
      () => this.forget(''),
    );
  }

  async get(sessionId: string): Promise<CachedSession | undefined> {
    return (await this.notices.ready()) ? this.sessions.get(sessionId) : undefined;
  }

  /** A lookup's generation, to hand back to set(). */
  begin(): number {
    return this.generation;
  }

  set(generation: number, row: ActiveSessionRow): CachedSession {
    const entry = cached(row);
    if (this.notices.listening && generation === this.generation) {
      if (this.sessions.size >= MAX_CACHED_SESSIONS) this.sessions.delete(this.sessions.keys().next().value!);
      this.sessions.set(row.sessionId, entry);
    }
    return entry;
  }

  async organization(db: Knex, organizationId: string): Promise<{ name: string; modules: Module[] } | null> {
    const listening = await this.notices.ready();
    const known = listening ? this.organizations.get(organizationId) : undefined;
    if (known) return known;
    const generation = this.generation;
    const found = await findOrganization(db, organizationId);
    if (found && this.notices.listening && generation === this.generation) {
      if (this.organizations.size >= MAX_CACHED_SESSIONS) this.organizations.delete(this.organizations.keys().next().value!);
      this.organizations.set(organizationId, found);
    }
    return found;
  }

  close(): Promise<void> {
    return this.notices.close();
  }

  forget(sessionId: string): void {
    this.generation++;
    if (sessionId) this.sessions.delete(sessionId);
    else {
      this.sessions.clear();
      this.organizations.clear();
    }
  }
}

/**
 * A valid signature is not enough: the session must still be live in the read model (not
 * logged out, credential not revoked), which is what makes logout and revocation immediate.
 */
export function createAuthenticator(db: Knex, clock: Clock, signingKeys: TokenKeys): Authenticator {
  const cache = new SessionCache(db);
  return {
    async verify(token, channel = 'api') {
      const now = clock.now();
      const claims = verifySessionToken(signingKeys, token, now);
      // The token expires with its session (tokens.ts), so a cached session needs no clock check.
      let entry = await cache.get(claims.sessionId);
      if (!entry) {
        const generation = cache.begin();
        const row = await findActiveSession(db, claims.sessionId, now);
        entry = row && cache.set(generation, row);
      }
      const issuedFor = entry?.row.credentialId === null ? 'console' : 'api';
      if (!entry || entry.row.userId !== claims.userId || entry.row.organizationId !== claims.organizationId || issuedFor !== channel) {
        throw new DomainError('unauthenticated', Messages.invalidToken);
      }
      return entry.principal;
    },
    organization: (organizationId) => cache.organization(db, organizationId),
    forget: (sessionId) => cache.forget(sessionId),
    close: () => cache.close(),
  };
}
