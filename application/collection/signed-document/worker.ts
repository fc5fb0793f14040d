import type { AppContext } from '../../context.ts';
import { EventFollower } from '../../event-follower.ts';
import { timestampAuthorityFrom } from '../../../platform/timestamp/rfc3161.ts';
import type { SigningOptions } from './build.ts';
import { loadSigningIdentity } from './certificate.ts';
import { produceSignedCopies } from './produce.ts';

/** TSA_URL and its settings, read at start too, so a wrong TSA_CA_CERTS_PATH stops the process rather than every copy. */
const signingOptions = (app: AppContext): SigningOptions => ({ tsa: timestampAuthorityFrom(app.config), revocationTimeoutMs: app.config.REVOCATION_FETCH_TIMEOUT_MS });

/**
 * Follows SignatureCompleted and produces the signed copies (projector role, one process at a
 * time). The certificate is opened (or generated) when the worker starts, so a wrong
 * SIGNING_P12_PASSWORD stops the process at start instead of failing every copy later.
 */
class SignedDocumentWorker extends EventFollower {
  constructor() {
    super('collection-signed-documents', ['SignatureCompleted'], (app, log) => {
      const identity = loadSigningIdentity(app.config);
      const options = signingOptions(app);
      return (event) => produceSignedCopies(app, identity, options, event, log);
    });
  }

  override async start(app: AppContext): Promise<void> {
    const identity = loadSigningIdentity(app.config);
    const { tsa } = signingOptions(app);
    app.log.info(
      { certificate: identity.source, subject: identity.subject, fingerprint: identity.fingerprint, tsa: tsa?.url ?? null, level: tsa ? 'B-LT' : 'B-B' },
      'signed copies: signing certificate',
    );
    await super.start(app);
  }
}

export const signedDocumentWorker = () => new SignedDocumentWorker();
