import type { Config } from '../../../config/index.ts';
import type { IdentityProvider } from './provider.ts';
import { SandboxIdentityProvider } from './sandbox.ts';

/** The identity provider IDENTITY_PROVIDER names (README, Configuration); the offline sandbox by default. */
export function identityProviderFor(_config: Config): IdentityProvider {
  return new SandboxIdentityProvider();
}
