/**
 * One process opening the signing certificate: `node --import tsx certificate-child.ts` with
 * DATA_DIR in its environment; prints the certificate's fingerprint.
 */
import { loadSigningIdentity } from '../../application/collection/signed-document/certificate.ts';
import { loadConfig } from '../../config/index.ts';

process.stdout.write(`${loadSigningIdentity(loadConfig(process.env)).fingerprint}\n`);
