// Builds the SDK into sdk/dist/: index.js bundled by esbuild (openapi-fetch stays a dependency), and the .d.ts
// declarations by tsc, which is the slow part, so it runs only when a file in sdk/src/ is newer than the last
// declarations (and not at all where TypeScript is not installed, as in a production install).
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';

function newest(dir) {
  return Math.max(
    ...readdirSync(dir, { withFileTypes: true }).map((e) =>
      e.isDirectory() ? newest(join(dir, e.name)) : statSync(join(dir, e.name)).mtimeMs,
    ),
  );
}

/** Builds sdk/dist/; answers whether the declarations were 'written', 'current' or 'skipped' (no TypeScript). */
export async function buildSdk(root) {
  const sdk = join(root, 'sdk');
  await build({
    entryPoints: [join(sdk, 'src/index.ts')],
    outfile: join(sdk, 'dist/index.js'),
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    external: ['openapi-fetch'],
    sourcemap: 'linked',
    logLevel: 'warning',
  });
  const declarations = join(sdk, 'dist/index.d.ts');
  const tsc = join(root, 'node_modules/typescript/bin/tsc');
  if (!existsSync(tsc)) return { declarations: 'skipped' };
  if (existsSync(declarations) && statSync(declarations).mtimeMs >= newest(join(sdk, 'src'))) {
    return { declarations: 'current' };
  }
  const result = spawnSync(process.execPath, [tsc, '-p', join(sdk, 'tsconfig.json')], { stdio: 'inherit' });
  if (result.status !== 0) throw new Error('tsc could not write the SDK declarations');
  return { declarations: 'written' };
}
