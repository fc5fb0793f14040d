import type { Actor } from '../../domain/collection/commands.ts';
import type { Principal } from '../../domain/identity/access.ts';

export type Caller = Pick<Principal, 'organizationId' | 'userId' | 'permissions'>;

/**
 * Who acts, for the trails of collections and registries: an integration credential is API_USER,
 * an operator USER. An integration credential is one that passes the registry and collection gates
 * only through can-use-registry-api, as http/gates.ts reads it: a caller that also holds the
 * operator's can-generate-report is an operator, whatever else it may do. The id is the user's,
 * never a secret.
 */
export function actorOf(caller: Caller): Actor {
  const integration = caller.permissions.has('can-use-registry-api') && !caller.permissions.has('can-generate-report');
  return { actorType: integration ? 'API_USER' : 'USER', actorId: caller.userId };
}

export const SYSTEM_ACTOR: Actor = { actorType: 'SYSTEM', actorId: null };
export const recipientActor = (recipientId: string): Actor => ({ actorType: 'RECIPIENT', actorId: recipientId });
