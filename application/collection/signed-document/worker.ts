import type { AppContext } from '../../context.ts';
import { EventFollower } from '../../event-follower.ts';
import { loadSigningIdentity } from './certificate.ts';
import { produceSignedCopies } from './produce.ts';

/**
 * Follows SignatureCompleted and produces the signed copies (projector role, one process at a
 * time). The certificate is opened (or generated) when the worker starts, so a wrong
 * SIGNING_P12_PASSWORD stops the process at start instead of failing every copy later.
 */
class SignedDocumentWorker extends EventFollower {
  constructor() {
    super('collection-signed-documents', ['SignatureCompleted'], (app, log) => {
      const identity = loadSigningIdentity(app.config);
      return (event) => produceSignedCopies(app, identity, event, log);
    });
  }

  override async start(app: AppContext): Promise<void> {
    const identity = loadSigningIdentity(app.config);
    app.log.info({ certificate: identity.source, subject: identity.subject, fingerprint: identity.fingerprint }, 'signed copies: signing certificate');
    await super.start(app);
  }
}

export const signedDocumentWorker = () => new SignedDocumentWorker();
