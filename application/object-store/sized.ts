import { Readable, Transform } from 'node:stream';
import { ObjectSizeMismatchError } from './port.ts';

/**
 * Passes a body through while counting it: fails as soon as it goes past `maxBytes` or
 * `expectedBytes`, and at its end when it is shorter than `expectedBytes`. Adapters pipe every
 * body through it, so a client that lies about its length never gets more than that stored.
 */
export function sizedBody(key: string, body: Buffer | Readable, options: { expectedBytes?: number; maxBytes?: number }): Readable {
  const source = Buffer.isBuffer(body) ? Readable.from([body]) : body;
  const limit = Math.min(options.expectedBytes ?? Infinity, options.maxBytes ?? Infinity);
  let seen = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      seen += chunk.length;
      if (seen > limit) return done(new ObjectSizeMismatchError(key, seen));
      done(null, chunk);
    },
    flush(done) {
      if (options.expectedBytes !== undefined && seen !== options.expectedBytes) return done(new ObjectSizeMismatchError(key, seen));
      done();
    },
  });
  source.on('error', (error) => counter.destroy(error));
  return source.pipe(counter);
}
