#!/usr/bin/env node
// `npm run bench -- NAME [args]`: runs bench/NAME.ts, which prints one JSON line of figures.
import { existsSync, readdirSync } from 'node:fs';
import { register } from 'tsx/esm/api';

register();
const [name, ...rest] = process.argv.slice(2);
const file = new URL(`../bench/${name}.ts`, import.meta.url);
if (!name || !/^[\w-]+$/.test(name) || !existsSync(file)) {
  const names = readdirSync(new URL('../bench/', import.meta.url))
    .filter((f) => f.endsWith('.ts'))
    .map((f) => f.slice(0, -3));
  process.stderr.write(`usage: npm run bench -- <${names.join('|')}>\n`);
  process.exit(2);
}
process.argv = [process.argv[0], file.pathname, ...rest];
await import(file.href);
