// Reads an operator console page's tables back in the overview and margins tests.
import assert from 'node:assert/strict';

/** The cells of a table's rows (its heading row left out), by its caption; tags stripped from each cell. */
export function rowsOf(page: string, caption: string): string[][] {
  const at = page.indexOf(`<caption>${caption}</caption>`);
  assert.ok(at >= 0, `no table "${caption}"`);
  const body = page.slice(at, page.indexOf('</table>', at));
  return [...body.matchAll(/<tr>(.*?)<\/tr>/gs)]
    .slice(1)
    .map((r) => [...r[1].matchAll(/<td[^>]*>(.*?)<\/td>/gs)].map((c) => c[1].replace(/<[^>]+>/g, '')));
}
