#!/usr/bin/env node
// Entry point: runs the compiled CLI in dist/ (built by `npm run build`, which `npm install` runs through
// `prepare`). When dist/ is missing or older than any file in src/ (a checkout edited since the last build), it
// runs the TypeScript source through tsx instead, so what runs is always what is in src/ now.
import { readdirSync, statSync } from 'node:fs';

const root = new URL('../', import.meta.url);

function builtAt() {
  try {
    return statSync(new URL('dist/built', root)).mtimeMs;
  } catch {
    return -1;
  }
}

// True when some file under `dir` was changed after `since`.
function changedSince(dir, since) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory() ? changedSince(path, since) : statSync(path).mtimeMs > since) return true;
  }
  return false;
}

const built = builtAt();
if (built >= 0 && !changedSince(new URL('src', root).pathname, built)) {
  await import('../dist/main.js');
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/cli/main.ts');
}
