// The sealing key of this service: YONA_SECRET_KEY when set (every node of one database needs the same),
// else a random key kept in the data dir (`secret.key`, mode 0600), made on first use.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from './config.ts';
import { SEALING_KEY_BYTES } from './domain/sealed.ts';

const loaded = new Map<string, Buffer>();

/** Whether this configuration has a sealing key already (YONA_SECRET_KEY, or a secret.key in the data dir). */
export function hasSealingKey(config: Pick<Config, 'secretKey' | 'dataDir'>): boolean {
  return config.secretKey !== undefined || existsSync(join(config.dataDir, 'secret.key'));
}

/** The key secrets are sealed with in the store. */
export function sealingKey(config: Pick<Config, 'secretKey' | 'dataDir'>): Buffer {
  if (config.secretKey) return config.secretKey;
  let key = loaded.get(config.dataDir);
  if (key) return key;
  const file = join(config.dataDir, 'secret.key');
  try {
    key = Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    mkdirSync(config.dataDir, { recursive: true });
    const fresh = randomBytes(SEALING_KEY_BYTES);
    try {
      writeFileSync(file, `${fresh.toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    key = Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
  }
  if (key.length !== SEALING_KEY_BYTES) throw new Error(`${file} does not hold a ${SEALING_KEY_BYTES}-byte key`);
  loaded.set(config.dataDir, key);
  return key;
}
