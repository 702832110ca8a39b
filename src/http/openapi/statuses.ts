// The `status` field of every reply: one `const` per catalogue code with its English message (src/domain/status.ts).
import { DELIVERY, DELIVERY_STATUS, REQUEST_STATUS } from '../../domain/status.ts';
import type { JsonSchema } from './json-schema.ts';

/** Codes of a call that worked: 0, and 944 and 946 of rmNumBL and addNumBL. */
export const SUCCESS_STATUSES: readonly number[] = [0, 944, 946];

/** Codes of a call that failed. */
export const failureStatuses = () =>
  Object.keys(REQUEST_STATUS)
    .map(Number)
    .filter((code) => !SUCCESS_STATUSES.includes(code));

/** `status` as a schema: each code a branch titled by its message, so tools list what every code means. */
export function statusSchema(codes: readonly number[] = Object.keys(REQUEST_STATUS).map(Number)): JsonSchema {
  return {
    type: 'integer',
    description:
      'Outcome of the call (the HTTP status is always 200). 0 is success; 944 and 946 are success-like answers of rmNumBL and addNumBL.',
    oneOf: codes.map((code) => ({ const: code, title: REQUEST_STATUS[code].en, description: REQUEST_STATUS[code].he })),
  };
}

/** The catalogue as a Markdown table, for the reply's description. */
export function statusTable(): string {
  const rows = Object.entries(REQUEST_STATUS).map(([code, entry]) => `| ${code} | ${entry.en} |`);
  return ['| status | message |', '|---|---|', ...rows].join('\n');
}

/** The delivery statuses of a report, as a Markdown list for the dlr push's `status` field. */
export function deliveryStatusList(): string {
  const rows = Object.entries(DELIVERY_STATUS)
    .filter(([code]) => Number(code) !== DELIVERY.NOT_DELIVERED)
    .map(([code, entry]) => `${code}: ${entry.en}`);
  return `${rows.join('; ')}; 101 and 105-132: not delivered.`;
}
