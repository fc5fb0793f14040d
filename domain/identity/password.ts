import { Messages } from '../shared/messages.ts';

/** NIST SP 800-63B: a length floor, no composition rules; the ceiling bounds the hashing work. */
export const PASSWORD_LENGTH = { min: 10, max: 128 } as const;

/** What is wrong with a new password, or null. Counted in code points, as people count characters. */
export function passwordProblem(password: string): string | null {
  const length = [...password].length;
  return length < PASSWORD_LENGTH.min || length > PASSWORD_LENGTH.max ? Messages.passwordLength : null;
}
