// The stores every store-backed suite runs on: SQLite always, PostgreSQL when a server answers
// (TEST_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/test). REQUIRE_POSTGRES=1 makes its absence a failure.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

export interface StoreTarget {
  name: 'sqlite' | 'postgres';
  /** Creates an empty store; returns the env that points Yona at it and a cleanup. */
  create(): Promise<{ env: Record<string, string>; cleanup(): Promise<void> }>;
}

const adminUrl = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

async function postgresAvailable(): Promise<boolean> {
  const client = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 1500 });
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

const sqliteTarget: StoreTarget = {
  name: 'sqlite',
  async create() {
    const dir = mkdtempSync(join(tmpdir(), 'yona-test-'));
    return { env: { YONA_DATA_DIR: dir }, cleanup: async () => rmSync(dir, { recursive: true, force: true }) };
  },
};

const postgresTarget: StoreTarget = {
  name: 'postgres',
  async create() {
    const dbName = `yona_t_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${dbName}`);
    await admin.end();
    const url = new URL(adminUrl);
    url.pathname = `/${dbName}`;
    const dir = mkdtempSync(join(tmpdir(), 'yona-test-'));
    return {
      env: { YONA_DATA_DIR: dir, DATABASE_URL: url.toString() },
      async cleanup() {
        rmSync(dir, { recursive: true, force: true });
        const c = new pg.Client({ connectionString: adminUrl });
        await c.connect();
        await c.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
        await c.end();
      },
    };
  },
};

let cached: StoreTarget[] | undefined;

/** The store targets for this run (PostgreSQL skipped with a notice when absent, unless required). */
export async function storeTargets(): Promise<StoreTarget[]> {
  if (cached) return cached;
  const hasPg = await postgresAvailable();
  if (!hasPg && process.env.REQUIRE_POSTGRES === '1') {
    throw new Error(`REQUIRE_POSTGRES=1 but PostgreSQL is not reachable at ${adminUrl}`);
  }
  if (!hasPg) console.log(`# NOTICE: PostgreSQL not reachable at ${adminUrl}; PostgreSQL runs skipped`);
  cached = hasPg ? [sqliteTarget, postgresTarget] : [sqliteTarget];
  return cached;
}
