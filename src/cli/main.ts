// The `yona` command line: serve, admin, smsc-sim, sim.
import { ConfigError } from '../config.ts';
import { runAdmin, UsageError } from './admin.ts';
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

try {
  await main(process.argv.slice(2));
} catch (err) {
  if (err instanceof UsageError || err instanceof ConfigError) {
    process.stderr.write(`yona: ${err.message}\n`);
    process.exit(2);
  }
  process.stderr.write(`yona: ${(err as Error).stack ?? err}\n`);
  process.exit(1);
}
