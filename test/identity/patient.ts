/**
 * For apps under test whose assertions say "at once after the command answered": the command
 * waits for the identity projection however long a loaded machine takes (the default gives up
 * after 5 s and answers anyway, and a test would then see the state before its own write).
 */
export const PATIENT_READ_YOUR_WRITES = { READ_YOUR_WRITES_TIMEOUT_MS: '120000' };
