// pino logs: JSON lines, or readable lines (pino-pretty) when stdout is a terminal; tokens, passwords and
// authorization headers are redacted wherever they appear.
import pino, { type Logger } from 'pino';
import pretty from 'pino-pretty';

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

/** Readable log lines (time, level, message, then the fields) written to `out`. */
export function readableLines(out: NodeJS.WritableStream, colour = false): pino.DestinationStream {
  return pretty({
    destination: out,
    colorize: colour,
    translateTime: 'SYS:yyyy-mm-dd HH:MM:ss.l',
    ignore: 'pid,hostname,service',
    sync: true,
  });
}

/** The process logger: to `destination`, else readable lines on a terminal and JSON lines otherwise. */
export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  const out = destination ?? (process.stdout.isTTY ? readableLines(process.stdout, true) : undefined);
  return pino({ level, redact: { paths: REDACT, censor: '[redacted]' }, base: { service: 'yona' } }, out);
}
