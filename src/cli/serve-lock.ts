// One `yona serve` per embedded store. Two processes on one SQLite data dir would both dispatch, and each would
// take back at start what the other has in flight (sending it twice), so the second is refused. The lock is a
// pid file: a file left by a process that is gone (a crash, kill -9) is taken over. PostgreSQL needs no lock:
// its workers coordinate through the database. The admin CLI takes no lock: it may run beside the server.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from '../config.ts';

const LOCK_FILE = 'serve.pid';

/** True when the process runs (or runs as another user). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function holder(file: string): number | undefined {
  try {
    const pid = Number(readFileSync(file, 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** The pid of the `yona serve` that holds the data dir now, if one does. */
export function serverHolding(dataDir: string): number | undefined {
  const pid = holder(join(dataDir, LOCK_FILE));
  return pid !== undefined && alive(pid) ? pid : undefined;
}

/** Takes the data dir for this process; throws ConfigError naming the other server; returns the release. */
export function lockDataDir(dataDir: string): () => void {
  mkdirSync(dataDir, { recursive: true });
  const file = join(dataDir, LOCK_FILE);
  const other = holder(file);
  if (other !== undefined && other !== process.pid && alive(other)) {
    throw new ConfigError(
      `another yona serve (pid ${other}) is running on the embedded store in ${dataDir}; ` +
        'run one process per data dir, or several on PostgreSQL (DATABASE_URL)',
    );
  }
  writeFileSync(file, `${process.pid}\n`);
  return () => {
    if (holder(file) === process.pid) rmSync(file, { force: true });
  };
}
