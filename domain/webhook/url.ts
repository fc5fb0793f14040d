export const MAX_URL_LENGTH = 2048;

/**
 * A destination URL as the domain accepts it: absolute http(s), no credentials (they would end
 * up in logs and replies), bounded length. Whether its address is reachable and public is decided
 * at delivery time, on every attempt, by the application's safe client.
 */
export function normalizeWebhookUrl(text: string): string | null {
  if (text.length === 0 || text.length > MAX_URL_LENGTH) return null;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  if (url.username || url.password || !url.hostname) return null;
  return url.href;
}
