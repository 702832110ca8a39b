// A mistake on the command line, and node:util parseArgs errors turned into one: kept apart from the commands so
// that `yona --help` and a mistyped command load nothing else.

/** A mistake on the command line: printed as one line, exit code 2. */
export class UsageError extends Error {}

/** A one-line UsageError for an argument error of node:util parseArgs (whose messages span lines), else undefined. */
export function parseArgsProblem(err: unknown): UsageError | undefined {
  const { code, message } = (err ?? {}) as { code?: unknown; message?: unknown };
  if (typeof code !== 'string' || !code.startsWith('ERR_PARSE_ARGS_') || typeof message !== 'string') return undefined;
  const option = /'(-{1,2}[^'\s=]+)/.exec(message)?.[1] ?? 'an option';
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') return new UsageError(`unknown option ${option}`);
  if (message.includes('argument missing')) return new UsageError(`${option} needs a value`);
  if (message.includes('ambiguous'))
    return new UsageError(`${option} needs a value; write ${option}=VALUE for a value starting with "-"`);
  return new UsageError(message.split('\n')[0]);
}
