// Building blocks of the reply schemas: each operation declares the fields of its success reply (beside `status`
// and `message`) as a zod schema, which types its handler's return value and is the reply schema of the API
// document (http/openapi/document.ts), so the two cannot drift apart.
import { z } from 'zod';

/** A text field of a reply. */
export const str = (description?: string) => (description ? z.string().describe(description) : z.string());

/** A whole-number field of a reply. */
export const int = (description?: string) => (description ? z.number().int().describe(description) : z.number().int());

/** A date as replies give it. */
export const DATE = "dd/mm/yy hh:mm in the account's time zone";

/** An amount of money as replies give it. */
export const SHEKELS = 'shekels with two decimals, as text';
