// The `yona` command line: serve, admin, smsc-sim, sip-sim, wa-sim, sim. Each command's modules are loaded only when it runs, so
// `yona --help` or one admin command does not load the service.
import { ConfigError } from '../domain/errors.ts';
import { VERSION } from '../domain/version.ts';
import { COMMAND_HELP, didYouMean, formatCommandList, formatHelp, wantsHelp } from './help.ts';
import { parseArgsProblem, UsageError } from './usage-error.ts';

type Runner = (args: string[]) => Promise<void>;

/** Subcommands by name. */
export const COMMANDS: Record<string, Runner> = {
  serve: (args) => import('./serve.ts').then((m) => m.runServe(args)),
  admin: (args) => import('./admin.ts').then((m) => m.runAdmin(args)),
  'smsc-sim': (args) => import('./sim.ts').then((m) => m.runSimulator('smsc-sim', args)),
  'sip-sim': (args) => import('./sim.ts').then((m) => m.runSimulator('sip-sim', args)),
  'wa-sim': (args) => import('./sim.ts').then((m) => m.runWaSim(args)),
  sim: (args) => import('./sim.ts').then((m) => m.runSim(args)),
};

const TOP_HELP = formatCommandList(
  'usage: yona COMMAND [ARGS]',
  COMMAND_HELP,
  'yona COMMAND --help explains a command; yona admin --help lists the operator commands; yona --version prints the version.',
);

async function main(argv: string[]): Promise<void> {
  const [name, ...rest] = argv;
  if (name === '--version' || name === '-v' || name === 'version') {
    console.log(`yona ${VERSION}`);
    return;
  }
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    if (name === undefined) throw new UsageError(`a command is needed\n${TOP_HELP}`);
    console.log(TOP_HELP);
    return;
  }
  const run = COMMANDS[name];
  if (!run)
    throw new UsageError(
      `unknown command "${name}"${didYouMean(name, Object.keys(COMMANDS))} (usage: yona COMMAND [ARGS]; yona --help lists the commands)`,
    );
  if (name !== 'admin' && wantsHelp(rest)) {
    console.log(formatHelp(COMMAND_HELP[name]));
    return;
  }
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
async function report(err: unknown): Promise<never> {
  const problem = err instanceof UsageError || err instanceof ConfigError ? err : parseArgsProblem(err);
  if (problem) {
    process.stderr.write(`yona: ${problem.message}\n`);
    process.exit(2);
  }
  process.stderr.write(`yona: ${describe(err).replace(/\s*\n\s*/g, ' ')}\n`);
  const { readSetting } = await import('../config.ts');
  if (/^(debug|trace)$/.test(readSetting('YONA_LOG_LEVEL'))) process.stderr.write(`${(err as Error).stack ?? ''}\n`);
  process.exit(1);
}

try {
  await main(process.argv.slice(2));
} catch (err) {
  await report(err);
}
