export const MAX_URL_LENGTH = 2048;

/** Which rule of the URL's shape refuses it. */
export type UrlProblem = 'length' | 'malformed' | 'scheme' | 'credentials' | 'port';

/**
 * A destination URL as the domain accepts it: absolute http(s), no credentials (they would end
 * up in logs and replies), a port a connection can use, bounded length. Whether its address is
 * reachable and public is decided at delivery time, on every attempt, by the application's safe
 * client. Returns the normalized URL, or the rule that refuses it.
 */
export function checkWebhookUrl(text: string): { url: string } | { problem: UrlProblem } {
  if (text.length === 0 || text.length > MAX_URL_LENGTH) return { problem: 'length' };
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { problem: 'malformed' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { problem: 'scheme' };
  if (!url.hostname) return { problem: 'malformed' };
  if (url.username || url.password) return { problem: 'credentials' };
  if (url.port === '0') return { problem: 'port' };
  return { url: url.href };
}
