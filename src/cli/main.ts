// The `yona` command line: serve, admin, smsc-sim, sim.
import { ConfigError } from '../config.ts';
import { parseArgsProblem, runAdmin, UsageError } from './admin.ts';
import { runServe } from './serve.ts';

type Runner = (args: string[]) => Promise<void>;

/** Subcommands; other issues register theirs here. */
export const COMMANDS: Record<string, Runner> = {
  serve: () => runServe(),
  admin: (args) => runAdmin(args),
  'smsc-sim': (args) => import('./sim.ts').then((m) => m.runSmscSim(args)),
  sim: (args) => import('./sim.ts').then((m) => m.runSim(args)),
};

async function main(argv: string[]): Promise<void> {
  const [name, ...rest] = argv;
  const run = name ? COMMANDS[name] : undefined;
  if (!run) throw new UsageError(`usage: yona <${Object.keys(COMMANDS).join('|')}> ...`);
  await run(rest);
}

// The message, or what an AggregateError (a refused connection to every address of a host) holds instead.
function describe(err: unknown): string {
  const e = err as { message?: string; code?: string; errors?: unknown[] } | undefined;
  if (e?.message) return e.message;
  if (e?.errors?.length) return describe(e.errors[0]);
  return e?.code ?? String(err);
}

/** Every error is one line on stderr; the stack only at YONA_LOG_LEVEL=debug or trace. */
function report(err: unknown): never {
  const problem = err instanceof UsageError || err instanceof ConfigError ? err : parseArgsProblem(err);
  if (problem) {
    process.stderr.write(`yona: ${problem.message}\n`);
    process.exit(2);
  }
  process.stderr.write(`yona: ${describe(err).replace(/\s*\n\s*/g, ' ')}\n`);
  if (/^(debug|trace)$/.test(process.env.YONA_LOG_LEVEL ?? '')) process.stderr.write(`${(err as Error).stack ?? ''}\n`);
  process.exit(1);
}

try {
  await main(process.argv.slice(2));
} catch (err) {
  report(err);
}
