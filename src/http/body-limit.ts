// The smaller body limit of an API request that has not authenticated (YONA_BODY_LIMIT_WITHOUT_TOKEN,
// docs/security.md). The bearer token is a header, so it is checked before the body is read, and only when the body
// may be larger than that limit: a request whose Content-Length is within it costs nothing more. A request without a
// valid token (none, unknown, expired or superseded) whose Content-Length passes the limit is refused before a byte
// of its body is read; a body sent without one (chunked) is counted as it arrives and refused at the first byte past
// the limit. Either answers status 1 through the API's error reply; a valid token may send up to YONA_BODY_LIMIT.
import { Transform, type TransformCallback } from 'node:stream';
import type { preParsingHookHandler } from 'fastify';
import { bearerToken } from './bearer.ts';

/** A body past the limit without a valid token: fastify's 413, with the limit it passed. */
export class BodyTooLarge extends Error {
  readonly statusCode = 413;
  constructor(readonly limit: number) {
    super(`body larger than ${limit} bytes (the limit without a valid bearer token)`);
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

/**
 * The preParsing hook holding a request without a valid bearer token to `limit` bytes of body; `validToken` asks
 * the store whether a token is one (known, unexpired, not superseded).
 */
export function limitBodyBeforeAuthentication(
  limit: number,
  validToken: (token: string) => Promise<boolean>,
): preParsingHookHandler {
  return (request, _reply, payload, done) => {
    const length = Number(request.headers['content-length']);
    if (length <= limit) return done(null, payload);
    const refuseOrCount = () => {
      if (length > limit) return done(new BodyTooLarge(limit));
      const counted = new CountedBody(limit);
      payload.on('error', (err) => counted.destroy(err));
      done(null, payload.pipe(counted));
    };
    const token = bearerToken(request.headers.authorization);
    if (token === undefined) return refuseOrCount();
    // A store that cannot answer validates nothing: the body meets the smaller limit.
    validToken(token).then(
      (valid) => (valid ? done(null, payload) : refuseOrCount()),
      () => refuseOrCount(),
    );
  };
}
