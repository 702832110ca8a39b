// CSV downloads of the console (message log, a campaign's messages, the ledger): streamed a batch of rows at a
// time whatever their number, UTF-8 with a byte order mark (so Excel reads Hebrew), one header row, CRLF line
// ends. The formula guard (docs/security.md, "CSV exports"): a text field that a spreadsheet would run as a
// formula (starting with = + - @, a tab or a CR) is written with a leading apostrophe, and so is each = + - @ that
// follows a character a spreadsheet may split on (comma, semicolon, tab, pipe, a line break; spaces between
// allowed), so that no reading of the file, whatever separator the reader's locale splits on, starts a cell with
// a formula. A field holding a separator, a quote or a line break is quoted.
// A phone is written as a tab then its digits, quoted: Excel and LibreOffice keep it as text, its leading 0 too.
import { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';

/** A phone number for a CSV (national form: 0521234567), kept as text by spreadsheets. */
export interface CsvPhone {
  phone: string;
}

export type CsvValue = string | number | null | undefined | CsvPhone;

export const csvPhone = (phone: string): CsvPhone => ({ phone });

const FORMULA_START = /^[=+\-@\t\r]/;
const FORMULA_AFTER_SPLIT = /([,;\t|\r\n] *)(?=[=+\-@])/g;
const NEEDS_QUOTES = /[",;\t|\r\n]/;

function field(v: CsvValue): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'number') return String(v);
  // Digits only after the tab: nothing a spreadsheet could run, whatever the formula guard says of a leading tab.
  if (typeof v === 'object') return /^\d+$/.test(v.phone) ? `"\t${v.phone}"` : field(v.phone);
  const safe = (FORMULA_START.test(v) ? `'${v}` : v).replace(FORMULA_AFTER_SPLIT, "$1'");
  return NEEDS_QUOTES.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
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
