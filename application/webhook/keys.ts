import { keyringFor, type Config, type Keyring } from '../../config/index.ts';
import { SecretBox } from '../../platform/secrets/secret-box.ts';

/** The salt of the signing secrets' AES key, unchanged since before key ids, so old values still open. */
const SIGNING_SECRETS = 'webhook-signing-secrets';

const boxes = new WeakMap<Keyring, SecretBox>();

/** Every process that signs deliveries needs the SEALING_KEYS that sealed the subscription's secret. */
export function secretBoxFor(config: Config): SecretBox {
  const keyring = keyringFor(config, 'sealing');
  let box = boxes.get(keyring);
  if (!box) boxes.set(keyring, (box = new SecretBox(keyring, SIGNING_SECRETS)));
  return box;
}
