// Writes docs/statuses.md from the status catalogue of src/domain/status.ts: every request status code and every
// delivery status, with the texts Yona answers in English and Hebrew. `npm run docs:statuses` rewrites the page;
// test/domain/statuses-doc.test.ts fails when the page and the catalogue differ.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  DELIVERY,
  DELIVERY_STATUS,
  REQUEST_STATUS,
  OPERATION_TEXTS,
  RESERVED_REQUEST_STATUSES,
  type RequestStatus,
} from '../src/domain/status.ts';

export const STATUSES_DOC = join(import.meta.dirname, '../docs/statuses.md');

const cell = (text: string) => text.replace(/\|/g, '\\|');

/** The page, as generated from the catalogue. */
export function renderStatusesDoc(): string {
  const names = new Map<number, string>(Object.entries(DELIVERY).map(([name, code]) => [code, name]));
  const requests = Object.entries(REQUEST_STATUS)
    .map(([code, entry]) => [Number(code), entry] as const)
    .sort(([a], [b]) => a - b)
    .map(([code, entry]) => {
      const reserved = RESERVED_REQUEST_STATUSES[code as RequestStatus];
      const byOperation = Object.entries(OPERATION_TEXTS)
        .filter(([, texts]) => texts[code])
        .map(([op, texts]) => `${op}: ${texts[code]?.en} (${texts[code]?.he})`);
      const note = reserved ? `never sent: ${reserved}` : byOperation.join('; ');
      return `| ${code} | ${cell(entry.en)} | ${cell(entry.he)} | ${note ? cell(note) : ''} |`;
    });
  const deliveries = Object.entries(DELIVERY_STATUS)
    .map(([code, entry]) => [Number(code), entry] as const)
    .sort(([a], [b]) => a - b)
    .map(([code, entry]) => `| ${code} | \`${names.get(code) ?? ''}\` | ${cell(entry.en)} | ${cell(entry.he)} |`);
  return [
    '# Status codes',
    '',
    'Generated from the catalogue in `src/domain/status.ts` by `npm run docs:statuses`; do not edit by hand (a test',
    'compares this page with the catalogue).',
    '',
    '## Request status codes',
    '',
    "The `status` of every reply: 0 is success; the `message` is the text below in the request's language",
    '(`Accept-Language: he` for Hebrew), often with a detail naming the field or value at fault.',
    '',
    '| status | English | Hebrew | note |',
    '|---|---|---|---|',
    ...requests,
    '',
    '## Delivery statuses',
    '',
    'The `status` of a message in delivery reports (`dlr`, `get_dlr`, pushes of type `dlr`), with the name the code',
    'carries in `src/domain/status.ts`.',
    '',
    '| status | name | English | Hebrew |',
    '|---|---|---|---|',
    ...deliveries,
    '',
  ].join('\n');
}

if (process.argv[1] && import.meta.filename === process.argv[1]) {
  writeFileSync(STATUSES_DOC, renderStatusesDoc());
  process.stderr.write(`wrote ${STATUSES_DOC}\n`);
}
