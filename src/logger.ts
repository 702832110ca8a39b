// pino logs: JSON lines with ISO-8601 times, or readable lines (pino-pretty) in the operator's time zone when
// stdout is a terminal; tokens, passwords and authorization headers are redacted wherever they appear; repeated
// identical lines are folded (support/log-folding.ts). docs/logs.md lists the events an operator can alert on.
import pino, { type Logger } from 'pino';
import pretty from 'pino-pretty';
import { DEFAULT_TIME_ZONE, formatIso } from './domain/dates.ts';
import { foldRepeats, FOLD_WINDOW_MS } from './support/log-folding.ts';

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

/** What writes a line with its fields: pino's logger, or one of withFields. */
export interface LineLogger {
  debug(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

/**
 * A logger whose lines carry `fields`, each key written once: a line giving one of them keeps its own value.
 * (A pino child writes its bindings and then the line's fields, so a key in both appears twice in the JSON line,
 * and a reader that parses it keeps only the last.)
 */
export function withFields(logger: Logger, fields: Record<string, unknown>): LineLogger {
  const line =
    (level: 'debug' | 'info' | 'warn' | 'error') =>
    (obj: object, msg?: string): void => {
      if (!logger.isLevelEnabled(level)) return;
      if (msg === undefined) logger[level]({ ...fields, ...obj });
      else logger[level]({ ...fields, ...obj }, msg);
    };
  return { debug: line('debug'), info: line('info'), warn: line('warn'), error: line('error') };
}
