// The smaller body limit of an API request without a bearer token (YONA_BODY_LIMIT_WITHOUT_TOKEN, docs/security.md):
// the token is a header, so whether one was sent is known before the body is read. A Content-Length over the limit
// is refused before a byte of the body is read; a body sent without one (chunked) is counted as it arrives and
// refused at the first byte past the limit. Either answers status 1 through the API's error reply.
import { Transform, type TransformCallback } from 'node:stream';
import type { preParsingHookHandler } from 'fastify';
import { bearerToken } from './bearer.ts';

/** A body past a limit: fastify's 413, with the limit it passed. */
export class BodyTooLarge extends Error {
  readonly statusCode = 413;
  constructor(readonly limit: number) {
    super(`body larger than ${limit} bytes (the limit without a bearer token)`);
  }
}

/** Counts the bytes passing through; fails at the first past the limit. */
class CountedBody extends Transform {
  private received = 0;
  constructor(private readonly limit: number) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.received += chunk.length;
    if (this.received > this.limit) done(new BodyTooLarge(this.limit));
    else done(null, chunk);
  }
}

/** The preParsing hook holding a request without a bearer token to `limit` bytes of body. */
export function limitBodyWithoutToken(limit: number): preParsingHookHandler {
  return (request, _reply, payload, done) => {
    if (bearerToken(request.headers.authorization) !== undefined) return done(null, payload);
    if (Number(request.headers['content-length']) > limit) return done(new BodyTooLarge(limit));
    const counted = new CountedBody(limit);
    payload.on('error', (err) => counted.destroy(err));
    done(null, payload.pipe(counted));
  };
}
