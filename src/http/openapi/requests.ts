// Request bodies: one schema per root element of the operation table, built from the operation's own zod input.
import { findOperation, operationNames } from '../../operations/index.ts';
import { IDEMPOTENCY_DESCRIPTION, IDEMPOTENCY_FIELD, takesIdempotencyKey } from '../../operations/idempotency.ts';
import { inputSchema, type JsonSchema } from './json-schema.ts';

const USER: JsonSchema = {
  type: 'object',
  description: 'The account the call acts for; the bearer token must belong to it or to its reseller.',
  properties: { username: { type: 'string', minLength: 1 } },
  required: ['username'],
};

/** Component name of the content of a root element (`sms` -> `smsRequest`). */
export const requestComponent = (root: string) => `${root}Request`;

/** The content of one root element: its operation's input plus `user`; in XML, an element named as the root. */
export function requestContentSchema(root: string): JsonSchema {
  const op = findOperation(root);
  if (!op) throw new Error(`no operation ${root}`);
  const input = inputSchema(op.input);
  const properties: JsonSchema = { user: USER, ...(input.properties as JsonSchema | undefined) };
  if (takesIdempotencyKey(op))
    properties[IDEMPOTENCY_FIELD] = {
      type: 'string',
      minLength: 1,
      maxLength: 255,
      description: IDEMPOTENCY_DESCRIPTION,
    };
  const required = ['user', ...((input.required as string[] | undefined) ?? [])];
  const notes = op.resellerOnly ? 'Reseller accounts only (else status 511). ' : '';
  return { ...input, properties, required, description: `${notes}Root element \`${root}\`.`, xml: { name: root } };
}

/** Every root element's content schema, keyed by component name. */
export function requestComponents(): Record<string, JsonSchema> {
  return Object.fromEntries(operationNames().map((root) => [requestComponent(root), requestContentSchema(root)]));
}

/** The JSON body: exactly one root key naming the operation (a `oneOf` with one branch per root element). */
export function jsonRequestSchema(): JsonSchema {
  return {
    oneOf: operationNames().map((root) => ({
      title: root,
      type: 'object',
      properties: { [root]: { $ref: `#/components/schemas/${requestComponent(root)}` } },
      required: [root],
      additionalProperties: false,
    })),
  };
}

/** The XML body: the same documents, the root element named as the operation (`xml.name` of each branch). */
export function xmlRequestSchema(): JsonSchema {
  return {
    description:
      'The root element names the operation; a repeatable element is repeated, an element with attributes and text (`<phone id="a1">0521234567</phone>`) is `{"$": {"id": "a1"}, "_": "0521234567"}` in JSON.',
    oneOf: operationNames().map((root) => ({ $ref: `#/components/schemas/${requestComponent(root)}` })),
  };
}
