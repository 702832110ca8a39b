// The TypeScript blocks of docs/sdk.md joined in order into one program (they are written as one), with
// '@yona/sdk' pointing where the caller says: the SDK's source, for running and for type-checking.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export const DOCS_PAGE = join(import.meta.dirname, '../../docs/sdk.md');

export function docsProgram(sdkSpecifier: string): string {
  const page = readFileSync(DOCS_PAGE, 'utf8');
  const blocks = [...page.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((m) => m[1]);
  assert.ok(blocks.length >= 5, 'docs/sdk.md has its examples');
  return blocks.join('\n').replaceAll("'@yona/sdk'", `'${sdkSpecifier}'`);
}
