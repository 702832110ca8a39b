// pino JSON logs; tokens, passwords and authorization headers are redacted wherever they appear.
import pino, { type Logger } from 'pino';

export type { Logger };

const REDACT = [
  'req.headers.authorization',
  'headers.authorization',
  'authorization',
  'password',
  'token',
  '*.password',
  '*.token',
  '*.authorization',
  'err.config.headers.authorization',
];

/** The process logger (JSON lines to stdout, or to the given destination). */
export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino({ level, redact: { paths: REDACT, censor: '[redacted]' }, base: { service: 'yona' } }, destination);
}
