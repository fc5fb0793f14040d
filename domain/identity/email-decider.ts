import type { Decider } from '../shared/decider.ts';
import { DomainError } from '../shared/errors.ts';
import { Messages } from '../shared/messages.ts';
import type { EmailClaimEvent } from './events.ts';

/** RFC 5321's limit on a path; the pattern only refuses what no mailbox can be (a full check is the mail relay's). */
const MAX_EMAIL = 254;
// The domain's labels exclude the dot, so no two quantifiers can trade characters (linear time).
const EMAIL = /^[^\s@<>()[\],;:"]+@[^\s@<>()[\],;:".]+(?:\.[^\s@<>()[\],;:".]+)+$/;

/** Lower case and trimmed: people type their address in any case, and it is a login. */
export function normalizeEmail(text: string): string {
  const email = text.trim().toLowerCase();
  if (email.length > MAX_EMAIL || !EMAIL.test(email)) throw new DomainError('invalid', Messages.invalidEmail);
  return email;
}

export type EmailClaimCommand = { type: 'ClaimEmail'; userId: string; organizationId: string; at: Date } | { type: 'ReleaseEmail'; userId: string; at: Date };

export interface EmailClaimState {
  holder: { userId: string; organizationId: string } | null;
}

/**
 * One address, one holder. Claiming an address the same user holds decides nothing (a retried
 * change); releasing one the user does not hold decides nothing either (the claim moved on).
 */
export const emailClaimDecider: Decider<EmailClaimCommand, EmailClaimEvent, EmailClaimState> = {
  initialState: () => ({ holder: null }),

  evolve(_state, event) {
    return { holder: event.type === 'EmailClaimed' ? { userId: event.data.userId, organizationId: event.data.organizationId } : null };
  },

  decide(command, state) {
    if (command.type === 'ReleaseEmail') {
      if (state.holder?.userId !== command.userId) return [];
      return [{ type: 'EmailReleased', data: { ...state.holder, releasedAt: command.at.toISOString() } }];
    }
    if (state.holder?.userId === command.userId) return [];
    if (state.holder) throw new DomainError('conflict', Messages.emailInUse);
    return [{ type: 'EmailClaimed', data: { userId: command.userId, organizationId: command.organizationId, claimedAt: command.at.toISOString() } }];
  },
};
