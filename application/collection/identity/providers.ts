import { ConfigurationError, type Config } from '../../../config/index.ts';
import { FaceppIdentityProvider } from './facepp.ts';
import type { IdentityProvider } from './provider.ts';
import { SandboxIdentityProvider } from './sandbox.ts';

/** The identity provider IDENTITY_PROVIDER names (docs/configuration.md); the offline sandbox by default. */
export function identityProviderFor(config: Config): IdentityProvider {
  if (config.IDENTITY_PROVIDER === 'sandbox') return new SandboxIdentityProvider();
  if (!config.FACEPP_API_KEY || !config.FACEPP_API_SECRET) {
    throw new ConfigurationError('IDENTITY_PROVIDER=facepp needs FACEPP_API_KEY and FACEPP_API_SECRET; fix: set both, or IDENTITY_PROVIDER=sandbox');
  }
  return new FaceppIdentityProvider(config.FACEPP_API_URL, config.FACEPP_API_KEY, config.FACEPP_API_SECRET, config.IDENTITY_TIMEOUT_MS);
}
