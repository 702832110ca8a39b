// JSON Schema (2020-12, the dialect of OpenAPI 3.1) as plain objects, and turning zod input schemas into it.
import { z } from 'zod';

export type JsonSchema = Record<string, unknown>;

/**
 * The JSON Schema of what a zod schema accepts (`io: 'input'`). Fields read through a preprocess step are
 * described by the schema the step feeds (the step itself cannot be expressed); fields read from lenient shapes
 * (`lenient` in operations/fields.ts) come out as `{}`, any value, with their description.
 */
export function inputSchema(schema: z.ZodType): JsonSchema {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
  return stripSafeIntegerBounds(rest) as JsonSchema;
}

// z.number().int() bounds itself to the safe integers; that is noise in a document read by people.
function stripSafeIntegerBounds(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(stripSafeIntegerBounds);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if ((k === 'minimum' || k === 'maximum') && Math.abs(v as number) === Number.MAX_SAFE_INTEGER) continue;
    out[k] = stripSafeIntegerBounds(v);
  }
  return out;
}
