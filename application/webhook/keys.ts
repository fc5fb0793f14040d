import { loadOrCreateSecret, type Config } from '../../config/index.ts';
import { SecretBox } from './secret-box.ts';

const boxes = new Map<string, SecretBox>();

/**
 * The key that seals signing secrets lives in DATA_DIR like the JWT secret: every process of a
 * deployment must share that folder (or the same file) to sign.
 */
export function secretBoxFor(config: Config): SecretBox {
  let box = boxes.get(config.DATA_DIR);
  if (!box) {
    box = new SecretBox(loadOrCreateSecret(config.DATA_DIR, 'webhook-signing-key'));
    boxes.set(config.DATA_DIR, box);
  }
  return box;
}
