import { createHash } from 'node:crypto';

/**
 * A customer link's token as stored: its sha256 (hex). The raw token goes to the customer once
 * and is never kept; the recipient links of collections and the offer links of proposals both
 * look a token up by this hash.
 */
export const hashLinkToken = (token: string): string => createHash('sha256').update(token).digest('hex');
