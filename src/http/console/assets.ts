// Static files of the console, read once at start: its stylesheet and script, and uPlot from the installed
// package (node_modules/uplot, pinned in package.json), so nothing is fetched from elsewhere at run time.
import { readFileSync } from 'node:fs';
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
    ['favicon.svg', { body: own('favicon.svg'), type: 'image/svg+xml' }],
    ['uPlot.min.css', { body: uplot('uPlot.min.css'), type: 'text/css; charset=utf-8' }],
    ['uPlot.iife.min.js', { body: uplot('uPlot.iife.min.js'), type: 'text/javascript; charset=utf-8' }],
  ]);
}

export function registerAssets(r: ConsoleRouter): void {
  const assets = load();
  r.open('GET', '/console/assets/:name', async (b) => {
    const asset = assets.get((b.request.params as { name: string }).name);
    if (!asset) return b.reply.code(404).send({ error: 'Not Found' });
    return b.reply
      .header('content-type', asset.type)
      .header('cache-control', 'public, max-age=3600')
      .header('x-content-type-options', 'nosniff')
      .send(asset.body);
  });
}
