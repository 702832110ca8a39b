// Array parameters of the PostgreSQL send group's statements (unnest() over one array per column), written as
// PostgreSQL's array text here in one pass: node-postgres would turn each element into text and quote and
// escape it with two regular expressions, for every column of every send of a group. The text is the same
// PostgreSQL reads from node-postgres (strings quoted and escaped alike, NULL for null and undefined), except
// that numbers are not quoted, which PostgreSQL reads the same.

/**
 * `values` as a PostgreSQL array literal (`{1,NULL,"a \"b\""}`); an array holding anything but strings,
 * numbers, bigints, booleans and null/undefined is returned as it is, for node-postgres to write.
 */
export function pgArray(values: readonly unknown[]): string | readonly unknown[] {
  let text = '{';
  for (let i = 0; i < values.length; i++) {
    if (i > 0) text += ',';
    const value = values[i];
    if (value === null || value === undefined) text += 'NULL';
    else if (typeof value === 'number' || typeof value === 'bigint') text += String(value);
    else if (typeof value === 'string') text += quoted(value);
    else if (typeof value === 'boolean') text += value ? '"true"' : '"false"';
    else return values;
  }
  return `${text}}`;
}

function quoted(value: string): string {
  if (value.indexOf('"') < 0 && value.indexOf('\\') < 0) return `"${value}"`;
  return `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}
