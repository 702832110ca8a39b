// Dynamic fields: per-recipient values merged into a message template (019 spelling `[DYNAMIC_FIELD1]`).

/** The six dynamic field names of a contact. */
export const DYNAMIC_FIELDS = ['df1', 'df2', 'df3', 'df4', 'df5', 'df6'] as const;

/** One of df1..df6. */
export type DynamicFieldName = (typeof DYNAMIC_FIELDS)[number];

/** A contact's dynamic field values; absent or null fields merge as empty text. */
export type DynamicFields = Partial<Record<DynamicFieldName, string | null | undefined>>;

// `[DYNAMIC_FIELD1]`..`[DYNAMIC_FIELD6]` (019 clients) and `[df1]`..`[df6]`, any letter case.
const PLACEHOLDER = /\[(?:dynamic_field|df)([1-6])\]/gi;

/** Replaces every dynamic field placeholder with the recipient's value (missing -> ''). */
export function mergeDynamicFields(template: string, fields: DynamicFields): string {
  return template.replace(PLACEHOLDER, (_match, n: string) => fields[`df${n}` as DynamicFieldName] ?? '');
}

/** True when the template holds at least one dynamic field placeholder. */
export function hasDynamicFields(template: string): boolean {
  PLACEHOLDER.lastIndex = 0;
  const found = PLACEHOLDER.test(template);
  PLACEHOLDER.lastIndex = 0;
  return found;
}
