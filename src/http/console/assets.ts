// Static files of the console, read once at start: its stylesheet and scripts, and uPlot from the installed
// package (node_modules/uplot, pinned in package.json), so nothing is fetched from elsewhere at run time. The
// send form's live counter counts with the service's own code: `encoding.js` is domain/encoding.ts bundled for
// the browser by esbuild, exposing `YonaEncoding.countParts`: by the build into dist/assets, or, run from the
// source, on the first request (then kept); both with the options of encoding-browser.json.
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { ConsoleRouter } from './router.ts';

const require = createRequire(import.meta.url);

interface Asset {
  body: Buffer;
  type: string;
}

function load(): Map<string, Asset> {
  const own = (name: string) => readFileSync(join(import.meta.dirname, 'assets', name));
  const uplot = (name: string) => readFileSync(require.resolve(`uplot/dist/${name}`));
  return new Map<string, Asset>([
    ['console.css', { body: own('console.css'), type: 'text/css; charset=utf-8' }],
    ['console.js', { body: own('console.js'), type: 'text/javascript; charset=utf-8' }],
    ['chart.js', { body: own('chart.js'), type: 'text/javascript; charset=utf-8' }],
    ['counter.js', { body: own('counter.js'), type: 'text/javascript; charset=utf-8' }],
    ['favicon.svg', { body: own('favicon.svg'), type: 'image/svg+xml' }],
    ['uPlot.min.css', { body: uplot('uPlot.min.css'), type: 'text/css; charset=utf-8' }],
    ['uPlot.iife.min.js', { body: uplot('uPlot.iife.min.js'), type: 'text/javascript; charset=utf-8' }],
  ]);
}

async function encodingScript(): Promise<Asset> {
  const type = 'text/javascript; charset=utf-8';
  const built = join(import.meta.dirname, 'assets', 'encoding.js');
  if (existsSync(built)) return { body: readFileSync(built), type };
  const { build } = await import('esbuild');
  const source = join(import.meta.dirname, '../../domain/encoding.ts');
  const options = JSON.parse(readFileSync(join(import.meta.dirname, 'encoding-browser.json'), 'utf8'));
  const out = await build({ ...options, entryPoints: [source], write: false });
  const [bundle] = out.outputFiles ?? [];
  return { body: Buffer.from(bundle.contents), type };
}

export function registerAssets(r: ConsoleRouter): void {
  const assets = load();
  let encoding: Promise<Asset> | undefined;
  r.open('GET', '/console/assets/:name', async (b) => {
    const name = (b.request.params as { name: string }).name;
    if (name === 'encoding.js') {
      encoding ??= encodingScript().catch((err) => {
        encoding = undefined;
        throw err;
      });
    }
    const asset = name === 'encoding.js' ? await encoding : assets.get(name);
    if (!asset) return b.reply.code(404).send({ error: 'Not Found' });
    return b.reply
      .header('content-type', asset.type)
      .header('cache-control', 'public, max-age=3600')
      .header('x-content-type-options', 'nosniff')
      .send(asset.body);
  });
}
