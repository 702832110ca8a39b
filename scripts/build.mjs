// `npm run build` (and `prepare`, so `npm install` and `npm ci` run it): bundles the CLI and the service into
// dist/ as plain JavaScript with esbuild: one entry, and one chunk per lazily loaded command, so `yona` starts
// without compiling TypeScript and loads only what the command it runs needs. The console's static files are
// copied beside the chunks (they are read relative to the module that serves them). Files are replaced one by
// one through a rename, the entry last, so a `yona` starting during a build loads either build, never half of
// one. bin/yona.js runs the source through tsx instead whenever dist/ is missing or older than a file in src/.
// The SDK (sdk/, the @yona/sdk package) is built into sdk/dist/ as well: see sdk-build.mjs.
import { cpSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { build } from 'esbuild';
import { buildSdk } from './sdk-build.mjs';

// Pure-JavaScript packages are bundled (one file loads far faster than a package of hundreds of modules);
// native modules, pino (its transports run in worker threads that load files by path) and optional drivers
// stay in node_modules.
const EXTERNAL = ['better-sqlite3', '@node-rs/argon2', 'pino', 'pino-pretty', 'pg-native', 'tsx', 'esbuild'];
const root = join(import.meta.dirname, '..');
const out = join(root, 'dist');
const ENTRY = join(out, 'main.js');
const started = Date.now();

const result = await build({
  // The media thread is an entry of its own: it runs in a worker thread, which loads it by path.
  entryPoints: { main: join(root, 'src/cli/main.ts'), 'media-thread': join(root, 'src/carriers/sip/media-thread.ts') },
  outdir: out,
  write: false,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external: EXTERNAL,
  // Bundled CommonJS packages call require(): give the ES module output one.
  banner: {
    js: "import { createRequire as yonaRequire } from 'node:module'; const require = yonaRequire(import.meta.url);",
  },
  chunkNames: '[name]-[hash]',
  sourcemap: 'linked',
  logLevel: 'warning',
});

mkdirSync(out, { recursive: true });
function replace(path, contents) {
  try {
    if (readFileSync(path).equals(Buffer.from(contents))) return;
  } catch {}
  const temp = `${path}.${process.pid}.tmp`;
  writeFileSync(temp, contents);
  renameSync(temp, path);
}
const files = [...result.outputFiles].sort((a, b) => (a.path === ENTRY) - (b.path === ENTRY));
for (const file of files) replace(file.path, file.contents);
cpSync(join(root, 'src/http/console/assets'), join(out, 'assets'), { recursive: true });
// The send form's live counter: domain/encoding.ts for the browser, with the options the console uses from source.
const consoleDir = join(root, 'src/http/console');
const encodingBrowser = JSON.parse(readFileSync(join(consoleDir, 'encoding-browser.json'), 'utf8'));
const counter = await build({ ...encodingBrowser, entryPoints: [join(root, 'src/domain/encoding.ts')], write: false });
replace(join(out, 'assets', 'encoding.js'), counter.outputFiles[0].contents);
// The source starts the media thread through media-thread.mjs (which registers tsx); built, it is plain JavaScript.
replace(join(out, 'media-thread.mjs'), "import './media-thread.js';\n");
// Written last: bin/yona.js compares src/ against this file's time.
writeFileSync(join(out, 'built'), `${new Date().toISOString()}\n`);

// Chunks of earlier builds go once no `yona` started then can still be loading them.
const current = new Set(files.map((f) => basename(f.path)));
for (const name of readdirSync(out)) {
  const path = join(out, name);
  if (/\.js(\.map)?$/.test(name) && !current.has(name) && statSync(path).mtimeMs < started - 600_000) rmSync(path);
}
const sdk = await buildSdk(root);
if (!process.argv.includes('--quiet'))
  process.stderr.write(
    `built dist/ and sdk/dist/ in ${Date.now() - started} ms (SDK declarations ${sdk.declarations})\n`,
  );
