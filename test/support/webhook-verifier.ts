import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * A receiver's check written from the spec text alone, sharing no code with the service:
 * hex HMAC-SHA256 with the secret over "<X-Service-Timestamp>.<raw body>", header
 * "sha256=<hex>", timestamp at most five minutes from now.
 */
export function receiverAccepts(secret: string, headers: Record<string, string | string[] | undefined>, rawBody: string, nowSeconds = Math.floor(Date.now() / 1000)): boolean {
  const header = (name: string) => {
    const value = headers[name] ?? headers[name.toLowerCase()];
    return Array.isArray(value) ? value[0] : value;
  };
  const timestamp = header('X-Service-Timestamp');
  const signature = header('X-Service-Signature');
  if (!timestamp || !signature || !/^\d+$/.test(timestamp)) return false;
  if (Math.abs(nowSeconds - Number(timestamp)) > 300) return false;
  const expected = Buffer.from(
    'sha256=' +
      createHmac('sha256', secret)
        .update(timestamp + '.' + rawBody)
        .digest('hex'),
  );
  const given = Buffer.from(signature);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
