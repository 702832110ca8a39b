// `yona admin backup FILE` and `yona admin restore FILE`: a checked copy of the embedded store taken while the
// server runs, and a copy put back into a data dir no server runs on. On PostgreSQL both explain pg_dump and
// pg_restore instead: the database has its own tools for consistent copies.
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { backupSqlite, restoreSqlite, SQLITE_FILE, type CheckedCopy } from '../store/backup.ts';
import { serverHolding } from './serve-lock.ts';
import type { StoreChoice } from './store-location.ts';
import { UsageError } from './usage-error.ts';

const POSTGRES_BACKUP =
  'the store is PostgreSQL: back it up with its own tools while Yona runs, e.g. ' +
  'pg_dump --format=custom --file=yona.dump "$DATABASE_URL", and restore into an empty database with ' +
  'pg_restore --dbname="$DATABASE_URL" yona.dump (docs/upgrade.md)';

function describe(c: CheckedCopy): string {
  return `${c.bytes} bytes, integrity ok, ${c.migrations} migrations, ${c.accounts} accounts, ${c.messages} messages`;
}

function oneFile(args: string[], usage: string): string {
  const files = args.filter((a) => !a.startsWith('--'));
  const flags = args.filter((a) => a.startsWith('--'));
  if (flags.length > 0) throw new UsageError(`unknown option ${flags[0]} (usage: ${usage})`);
  if (files.length !== 1) throw new UsageError(`usage: ${usage}`);
  return resolve(files[0]);
}

export async function backup(choice: StoreChoice, args: string[], out: (line: string) => void): Promise<void> {
  const target = oneFile(args, 'yona admin backup FILE');
  if (choice.databaseUrl) throw new UsageError(POSTGRES_BACKUP);
  if (!choice.exists) throw new UsageError(`no store to back up at ${join(choice.dataDir, SQLITE_FILE)}`);
  const checked = backupSqlite(choice.dataDir, target);
  out(`backed up ${choice.description} to ${target}: ${describe(checked)}`);
  out(
    'keep the secret key apart from it (YONA_SECRET_KEY, or secret.key in the data dir): sealed codes and secrets in the copy open only with it',
  );
}

export async function restore(choice: StoreChoice, args: string[], out: (line: string) => void): Promise<void> {
  const file = oneFile(args, 'yona admin restore FILE');
  if (choice.databaseUrl) throw new UsageError(POSTGRES_BACKUP);
  if (!existsSync(file)) throw new UsageError(`no backup at ${file}`);
  const running = serverHolding(choice.dataDir);
  if (running !== undefined)
    throw new UsageError(
      `a yona serve (pid ${running}) runs on ${choice.dataDir}: stop it before restoring into its data dir`,
    );
  const { checked, setAside } = restoreSqlite(file, choice.dataDir, new Date());
  out(`restored ${file} into ${join(choice.dataDir, SQLITE_FILE)}: ${describe(checked)}`);
  if (setAside) out(`the store it replaced was set aside as ${setAside}`);
}
