// CSV of contacts for the console's upload: one contact a line, `phone,df1,...,df6`, commas or semicolons,
// double quotes around a field that holds either (a doubled quote inside is one quote). A first line whose
// first field has no digit is a header and skipped. Blank lines are skipped; lines keep their numbers.
export interface CsvRow {
  line: number;
  fields: string[];
}

function splitLine(text: string, sep: string): string[] {
  const out: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else field += ch;
    } else if (ch === '"' && field.trim() === '') {
      quoted = true;
      field = '';
    } else if (ch === sep) {
      out.push(field.trim());
      field = '';
    } else field += ch;
  }
  out.push(field.trim());
  return out;
}

export function parseContactsCsv(text: string): { rows: CsvRow[]; header: boolean } {
  const lines = text.replace(/^\uFEFF/, '').split(/\r\n|\n|\r/);
  const sample = lines.find((l) => l.trim() !== '') ?? '';
  const sep = sample.includes(';') && !sample.includes(',') ? ';' : ',';
  const rows: CsvRow[] = [];
  let header = false;
  lines.forEach((l, i) => {
    if (l.trim() === '') return;
    const fields = splitLine(l, sep);
    if (rows.length === 0 && !header && !/\d/.test(fields[0] ?? '')) {
      header = true;
      return;
    }
    rows.push({ line: i + 1, fields });
  });
  return { rows, header };
}

/** The rows as the API's `destinations.destination` items. */
export function csvDestinations(rows: CsvRow[]): Array<Record<string, string>> {
  return rows.map((r) => {
    const d: Record<string, string> = { phone: r.fields[0] ?? '' };
    for (let k = 1; k <= 6; k++) if (r.fields[k]) d[`df${k}`] = r.fields[k];
    return d;
  });
}
