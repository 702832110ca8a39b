// Copies of the embedded store. A backup is made with `VACUUM INTO` on a read-only connection of its own: one read
// transaction copies every page as of one instant, so it is consistent while the server goes on writing (WAL:
// the copy blocks no writer), and no write restarts it, as a write by another connection restarts SQLite's
// step-wise backup API (a busy server would keep the copy from ever finishing). The copy is checked
// (`PRAGMA integrity_check`, and Yona's migrations table) before it takes its final name; a restore checks the file
// the same way before it replaces the store, and sets the replaced files aside.
import { existsSync, renameSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import SqliteDatabase from 'better-sqlite3';

export const SQLITE_FILE = 'yona.db';

/** What a checked copy holds. */
export interface CheckedCopy {
  bytes: number;
  migrations: number;
  accounts: number;
  messages: number;
}

/** Opens a copy read-only and checks it; throws naming the problem. */
export function checkCopy(file: string): CheckedCopy {
  let db: SqliteDatabase.Database;
  try {
    db = new SqliteDatabase(file, { readonly: true, fileMustExist: true });
  } catch (err) {
    throw new Error(`${file} cannot be opened as a SQLite database: ${(err as Error).message}`);
  }
  try {
    const result = db.pragma('integrity_check') as Array<{ integrity_check: string }>;
    const problems = result.map((r) => r.integrity_check).filter((r) => r !== 'ok');
    if (problems.length > 0) throw new Error(`${file} failed its integrity check: ${problems.slice(0, 3).join('; ')}`);
    const count = (table: string) => {
      try {
        return Number((db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n);
      } catch {
        throw new Error(`${file} is not a Yona store (it has no ${table} table)`);
      }
    };
    return {
      bytes: statSync(file).size,
      migrations: count('yona_migrations'),
      accounts: count('accounts'),
      messages: count('messages'),
    };
  } finally {
    db.close();
  }
}

/** Copies the store of `dataDir` into `target` (which must not exist) and checks the copy. */
export function backupSqlite(dataDir: string, target: string): CheckedCopy {
  if (existsSync(target)) throw new Error(`${target} exists: name a new file for the backup`);
  const temp = join(dirname(target), `.${basename(target)}.${process.pid}.partial`);
  const source = new SqliteDatabase(join(dataDir, SQLITE_FILE), { readonly: true, fileMustExist: true });
  try {
    source.pragma('busy_timeout = 10000');
    source.prepare('VACUUM INTO ?').run(temp);
  } catch (err) {
    rmSync(temp, { force: true });
    throw err;
  } finally {
    source.close();
  }
  try {
    const checked = checkCopy(temp);
    renameSync(temp, target);
    return checked;
  } catch (err) {
    rmSync(temp, { force: true });
    throw err;
  }
}

/** Puts a checked copy in place of the store of `dataDir`; returns where the replaced files were set aside. */
export function restoreSqlite(file: string, dataDir: string, now: Date): { checked: CheckedCopy; setAside?: string } {
  const checked = checkCopy(file);
  const store = join(dataDir, SQLITE_FILE);
  const temp = join(dataDir, `.${SQLITE_FILE}.${process.pid}.restoring`);
  const copy = new SqliteDatabase(file, { readonly: true, fileMustExist: true });
  try {
    copy.prepare('VACUUM INTO ?').run(temp);
  } finally {
    copy.close();
  }
  let setAside: string | undefined;
  if (existsSync(store)) {
    setAside = `${store}.replaced-${now.toISOString().replace(/[:.]/g, '-')}`;
    for (const suffix of ['', '-wal', '-shm'])
      if (existsSync(store + suffix)) renameSync(store + suffix, setAside + suffix);
  }
  renameSync(temp, store);
  return { checked, setAside };
}
