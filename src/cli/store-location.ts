// Which store `yona admin` works on, found and never invented: `--data-dir DIR`, else DATABASE_URL, else
// YONA_DATA_DIR, else the store of the one `yona serve` running for this user (serve-registry.ts), else ./data.
// A data dir without a store in it is refused (naming the place and how to point at the right one) unless the
// operator passes --new-store: a store made by mistake would take accounts and print tokens the server never sees.
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ConfigError, readSetting, settingGiven, type Config } from '../config.ts';
import { runningServers, withoutPassword, type RunningServer } from './serve-registry.ts';
import { UsageError } from './usage-error.ts';

/** The store options of `yona admin`, taken out of its arguments. */
export interface StoreFlags {
  dataDir?: string;
  newStore: boolean;
}

/** The store chosen, why, and whether it exists. */
export interface StoreChoice {
  databaseUrl?: string;
  dataDir: string;
  exists: boolean;
  /** One line for the operator: where and why. */
  description: string;
}

/** Removes `--data-dir DIR`, `--data-dir=DIR` and `--new-store` (anywhere) from the arguments. */
export function takeStoreFlags(args: string[]): { args: string[]; flags: StoreFlags } {
  const rest: string[] = [];
  const flags: StoreFlags = { newStore: false };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === '--new-store') flags.newStore = true;
    else if (arg.startsWith('--data-dir=')) flags.dataDir = arg.slice('--data-dir='.length);
    else if (arg === '--data-dir') {
      const value = args[++i];
      if (value === undefined || value === '') throw new UsageError('--data-dir needs a value');
      flags.dataDir = value;
    } else rest.push(arg);
  }
  if (flags.dataDir === '') throw new UsageError('--data-dir needs a value');
  return { args: rest, flags };
}

function embedded(dataDir: string, why: string): StoreChoice {
  const dir = resolve(dataDir);
  const file = join(dir, 'yona.db');
  return { dataDir: dir, exists: existsSync(file), description: `${file} (${why})` };
}

// The store of the running servers, when they all use one; a refusal when they use several.
function fromServers(servers: RunningServer[], config: Config): StoreChoice | undefined {
  const stores = new Map(servers.map((s) => [s.database ?? s.dataDir ?? '', s]));
  if (stores.size === 0) return undefined;
  if (stores.size > 1) {
    const list = [...stores.values()].map((s) => `pid ${s.pid}: ${s.database ?? s.dataDir}`).join('; ');
    throw new ConfigError(
      `several yona serve processes run on different stores (${list}); name one with --data-dir DIR or YONA_DATA_DIR=DIR (or DATABASE_URL)`,
    );
  }
  const [server] = stores.values();
  if (!server.database && server.dataDir)
    return embedded(server.dataDir, `the store of the running yona serve, pid ${server.pid}`);
  throw new ConfigError(
    `the running yona serve (pid ${server.pid}) uses PostgreSQL at ${server.database}; give this command the same DATABASE_URL (the data dir ${config.dataDir} is not its store)`,
  );
}

/** The store to use: see the top of this file. `dataDirGiven`: YONA_DATA_DIR is set in the environment. */
export function locateStore(
  config: Config,
  flags: StoreFlags,
  dataDirGiven: boolean,
  servers: () => RunningServer[] = runningServers,
): StoreChoice {
  if (flags.dataDir !== undefined) return embedded(flags.dataDir, '--data-dir');
  if (config.databaseUrl)
    return {
      databaseUrl: config.databaseUrl,
      dataDir: config.dataDir,
      exists: true,
      description: `PostgreSQL ${withoutPassword(config.databaseUrl)} (DATABASE_URL)`,
    };
  if (dataDirGiven) return embedded(config.dataDir, 'YONA_DATA_DIR');
  return fromServers(servers(), config) ?? embedded(config.dataDir, 'the default data dir ./data');
}

/** Why a command may not create the store it would need. */
export function missingStoreProblem(choice: StoreChoice): ConfigError {
  return new ConfigError(
    `there is no store at ${choice.description}: point at the server's store with --data-dir DIR or YONA_DATA_DIR=DIR (DATABASE_URL for PostgreSQL), or pass --new-store to create a new one there`,
  );
}

/** The data dir of the server to talk to (its simulator file): YONA_DATA_DIR, else the one running server's, else ./data. */
export function serverDataDir(servers: () => RunningServer[] = runningServers): string {
  if (settingGiven('YONA_DATA_DIR')) return readSetting('YONA_DATA_DIR');
  const dirs = new Set(servers().map((s) => s.dataDir));
  const [only] = dirs;
  return dirs.size === 1 && only ? only : readSetting('YONA_DATA_DIR');
}
