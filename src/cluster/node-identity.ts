// The default node name: the host name and a short id kept in the data dir (`node.id`, made on first start), so
// two `yona serve` on one host with their own data dirs (two nodes on one PostgreSQL database) start as they
// are, and each keeps its name across restarts. YONA_NODE_NAME, when set, is the name as given.
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { NodeSettings } from '../config.ts';

/** The id of the node whose data dir this is (6 hex digits). */
export function nodeId(dataDir: string): string {
  const file = join(dataDir, 'node.id');
  const read = () => readFileSync(file, 'utf8').trim();
  try {
    return read();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  mkdirSync(dataDir, { recursive: true });
  try {
    writeFileSync(file, `${randomBytes(3).toString('hex')}\n`, { flag: 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  return read();
}

/** The node's settings with its name made unique when none was given. */
export function withNodeName(node: NodeSettings, dataDir: string): NodeSettings {
  return node.named === false ? { ...node, name: `${node.name}-${nodeId(dataDir)}`, named: true } : node;
}
