// Typed errors: a handler throws ApiError(code, detail) and the edge turns it into a reply.
import { statusMessage, type RequestStatus } from './status.ts';

/** An expected request outcome with a status code from the catalogue. */
export class ApiError extends Error {
  constructor(
    readonly status: RequestStatus,
    detail?: string,
    /** Extra reply fields (e.g. rejected recipients) carried with the error. */
    readonly extra: Record<string, unknown> = {},
    /**
     * What the operator can do about it (e.g. the `yona admin` command that fixes it): logged with the refusal
     * (`api.refused`), never in the reply, which the customer of a white-label service reads.
     */
    readonly hint?: string,
  ) {
    // An expected outcome, not a fault: no stack trace (capturing one cost more than answering the request).
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(detail ?? statusMessage(status));
    Error.stackTraceLimit = limit;
  }
}

/** Status 2 naming the missing field. */
export function missingField(field: string): ApiError {
  return new ApiError(2, missingFieldMessage(field));
}

/** The message of status 2 for a missing field. */
export function missingFieldMessage(field: string): string {
  return `Missing required field: ${field}`;
}

/** A setting that cannot be used (environment, carriers file, stored carrier): the message names it. */
export class ConfigError extends Error {}
