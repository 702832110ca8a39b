// fastify gives every request a child of the process logger bound to its request id (`reqId`), which pino
// builds by serialising the bindings and copying the logger: on the API's hot path, where a request that is
// answered normally logs nothing, that is work per request for nothing. The request's logger here is made on
// its first use instead, with the same bindings and options, so every line fastify logs for a request
// (with YONA_LOG_REQUESTS=1, or its own errors) still carries the request id.
import type { Bindings, ChildLoggerOptions, Level, Logger } from 'pino';

const LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace'] as const satisfies readonly Level[];

class LazyRequestLogger {
  private made: Logger | undefined;

  constructor(
    private readonly parent: Logger,
    private readonly bindingsOf: Bindings,
    private readonly options: ChildLoggerOptions,
  ) {}

  /** The request's child logger, made on the first call. */
  get logger(): Logger {
    this.made ??= this.parent.child(this.bindingsOf, this.options);
    return this.made;
  }

  get level(): string {
    return this.made ? this.made.level : (this.options.level ?? this.parent.level);
  }

  set level(level: string) {
    this.logger.level = level;
  }

  isLevelEnabled(level: string): boolean {
    return this.logger.isLevelEnabled(level);
  }

  bindings(): Bindings {
    return this.logger.bindings();
  }

  child(bindings: Bindings, options?: ChildLoggerOptions): Logger {
    return this.logger.child(bindings, options);
  }
}

for (const level of LEVELS) {
  Object.defineProperty(LazyRequestLogger.prototype, level, {
    value(this: LazyRequestLogger, ...args: unknown[]) {
      return (this.logger[level] as (...a: unknown[]) => void)(...args);
    },
  });
}
// pino's own `silent` level method.
Object.defineProperty(LazyRequestLogger.prototype, 'silent', { value() {} });

/** A `childLoggerFactory` for fastify: the request's child logger, made when something logs through it. */
export function lazyRequestLogger(logger: Logger, bindings: Bindings, options: ChildLoggerOptions): Logger {
  return new LazyRequestLogger(logger, bindings, options) as unknown as Logger;
}
