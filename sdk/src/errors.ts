// The error every failed call throws: the reply's status and its message, or the HTTP status and body text when
// the server did not answer with a reply (a proxy's 502, a body over the size limit).
import type { components } from './generated/openapi.js';

export type ErrorReply = components['schemas']['ErrorReply'];

export class YonaError extends Error {
  override readonly name = 'YonaError';
  /** The reply's `status` (a failure code of the API's table), or the HTTP status when there was no reply. */
  readonly status: number;
  /** The reply's `message`, or the HTTP body's text. */
  readonly text: string;
  /** The HTTP status of the answer (200 for every reply of the API). */
  readonly httpStatus: number;
  /** The operation called. */
  readonly operation: string;
  /** The whole reply, when the server answered one. */
  readonly reply: ErrorReply | undefined;

  constructor(operation: string, status: number, text: string, httpStatus: number, reply?: ErrorReply) {
    super(`${operation}: status ${status}: ${text}`);
    this.operation = operation;
    this.status = status;
    this.text = text;
    this.httpStatus = httpStatus;
    this.reply = reply;
  }
}
