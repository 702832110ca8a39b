// Where the running `yona serve` processes of this user keep their store: each writes one small file,
// ~/.local/state/yona/servers/PID.json, while it runs (removed at shutdown; a file whose process is gone is
// ignored and removed by the next reader). `yona admin` reads them to find the store when none is named. A
// PostgreSQL URL is kept without its password.
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { alive } from './serve-lock.ts';

/** One running server, as its file says. */
export interface RunningServer {
  pid: number;
  /** Its data dir (the embedded store's, or on PostgreSQL where its certificate and simulator file are). */
  dataDir?: string;
  /** The PostgreSQL URL without its password, or undefined on the embedded store. */
  database?: string;
  /** Its loopback HTTP listener. */
  httpUrl: string;
}

/** The folder of the server files (under the user's home). */
export function registryDir(home = homedir()): string {
  return join(home, '.local', 'state', 'yona', 'servers');
}

/** The URL with its password left out. */
export function withoutPassword(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.password = '';
    return parsed.toString();
  } catch {
    return '(an unparsable DATABASE_URL)';
  }
}

/** Writes this process's file; returns its removal. A home that cannot be written is not an error. */
export function registerServer(server: Omit<RunningServer, 'pid'>, dir = registryDir()): () => void {
  const file = join(dir, `${process.pid}.json`);
  try {
    mkdirSync(dir, { recursive: true });
    writeFileSync(file, `${JSON.stringify({ pid: process.pid, ...server })}\n`);
  } catch {
    return () => {};
  }
  return () => rmSync(file, { force: true });
}

/** The servers that run now, by their files (the files of processes that are gone are removed). */
export function runningServers(dir = registryDir()): RunningServer[] {
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => /^\d+\.json$/.test(n));
  } catch {
    return [];
  }
  const found: RunningServer[] = [];
  for (const name of names) {
    const file = join(dir, name);
    try {
      const server = JSON.parse(readFileSync(file, 'utf8')) as RunningServer;
      if (alive(server.pid)) found.push(server);
      else rmSync(file, { force: true });
    } catch {
      // A file being written or removed right now.
    }
  }
  return found;
}
