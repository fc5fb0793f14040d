import type { Actor } from '../../domain/collection/commands.ts';
import type { Principal } from '../../domain/identity/access.ts';

export type Caller = Pick<Principal, 'organizationId' | 'userId' | 'permissions'>;

/**
 * Who acts, for the trail: an integration credential (the contract's can-use-registry-api) is
 * API_USER, any other credential an operator (USER). The id is the user's, never a secret.
 */
export function actorOf(caller: Caller): Actor {
  return { actorType: caller.permissions.has('can-use-registry-api') ? 'API_USER' : 'USER', actorId: caller.userId };
}

export const SYSTEM_ACTOR: Actor = { actorType: 'SYSTEM', actorId: null };
export const recipientActor = (recipientId: string): Actor => ({ actorType: 'RECIPIENT', actorId: recipientId });
