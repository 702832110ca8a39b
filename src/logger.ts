// pino logs: JSON lines with ISO-8601 times, or readable lines (pino-pretty) in the operator's time zone when
// stdout is a terminal; tokens, passwords and authorization headers are redacted wherever they appear; repeated
// identical lines are folded (log-folding.ts). docs/logs.md lists the events an operator can alert on.
import pino, { type Logger } from 'pino';
import pretty from 'pino-pretty';
import { DEFAULT_TIME_ZONE, formatIso } from './domain/dates.ts';
import { foldRepeats, FOLD_WINDOW_MS } from './log-folding.ts';

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

export interface LoggerOptions {
  /** The zone of readable lines on a terminal (YONA_TIME_ZONE). */
  timeZone?: string;
  /** Identical lines within this long are folded into one count (60 s; 0: never). */
  foldWindowMs?: number;
  /** The clock of the folding (tests). */
  clock?: () => number;
}

/** Readable log lines (time in `timeZone` with its offset, level, message, then the fields) written to `out`. */
export function readableLines(
  out: NodeJS.WritableStream,
  colour = false,
  timeZone = DEFAULT_TIME_ZONE,
): pino.DestinationStream {
  return pretty({
    destination: out,
    colorize: colour,
    ignore: 'pid,hostname,service',
    // The time as logged (ISO-8601 in UTC), shown in the operator's zone with its offset.
    translateTime: false,
    customPrettifiers: { time: (iso) => `[${formatIso(Date.parse(String(iso)), timeZone).replace('T', ' ')}]` },
    sync: true,
  });
}

/** The process logger: to `destination`, else readable lines on a terminal and JSON lines otherwise. */
export function createLogger(level: string, destination?: pino.DestinationStream, options: LoggerOptions = {}): Logger {
  const out = destination ?? (process.stdout.isTTY ? readableLines(process.stdout, true, options.timeZone) : undefined);
  const windowMs = options.foldWindowMs ?? FOLD_WINDOW_MS;
  return pino(
    {
      level,
      redact: { paths: REDACT, censor: '[redacted]' },
      base: { service: 'yona' },
      timestamp: pino.stdTimeFunctions.isoTime,
      hooks: windowMs > 0 ? { logMethod: foldRepeats(windowMs, options.clock ?? Date.now) } : undefined,
    },
    out,
  );
}
