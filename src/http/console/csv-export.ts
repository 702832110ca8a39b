// CSV downloads of the console (message log, a campaign's messages, the ledger): streamed a batch of rows at a
// time whatever their number, UTF-8 with a byte order mark (so Excel reads Hebrew), one header row, CRLF line
// ends, fields quoted when they hold a separator, a quote or a line break. A text field that a spreadsheet would
// run as a formula (starting with = + - @ or a tab) is written with a leading apostrophe.
import { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';

export type CsvValue = string | number | null | undefined;

function field(v: CsvValue): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'number') return String(v);
  const safe = /^[=+\-@\t\r]/.test(v) ? `'${v}` : v;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

export function csvLine(values: CsvValue[]): string {
  return `${values.map(field).join(',')}\r\n`;
}

/** Streams `rows` (read lazily) as a CSV attachment named `filename`. */
export function sendCsv<T>(
  reply: FastifyReply,
  filename: string,
  header: string[],
  rows: AsyncIterable<T>,
  toLine: (row: T) => CsvValue[],
): FastifyReply {
  async function* lines(): AsyncGenerator<string> {
    let chunk = `\uFEFF${csvLine(header)}`;
    for await (const row of rows) {
      chunk += csvLine(toLine(row));
      if (chunk.length >= 64 * 1024) {
        yield chunk;
        chunk = '';
      }
    }
    if (chunk) yield chunk;
  }
  return reply
    .code(200)
    .header('content-type', 'text/csv; charset=utf-8')
    .header('content-disposition', `attachment; filename="${filename}"`)
    .header('cache-control', 'no-store')
    .header('x-content-type-options', 'nosniff')
    .send(Readable.from(lines()));
}
