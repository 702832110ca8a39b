// The keys a JSON text repeats within one object (JSON.parse keeps the last of them silently), as
// `path.key`: read by a tokenizer over the text itself.

/** Keys written twice in the same object of `text`, e.g. `["carrier", "err.code"]`; [] when none. */
export function duplicateKeys(text: string): string[] {
  const repeated: string[] = [];
  // One entry per open object or array: its keys so far (undefined for an array) and its path.
  const open: Array<{ keys?: Set<string>; path: string; next?: string }> = [];
  let i = 0;
  const readString = (): string => {
    const start = i++;
    while (text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
    i++;
    return JSON.parse(text.slice(start, i)) as string;
  };
  while (i < text.length) {
    const c = text[i];
    const top = open.at(-1);
    if (c === '"') {
      const value = readString();
      let j = i;
      while (text[j] === ' ') j++;
      if (top?.keys && text[j] === ':') {
        const path = top.path ? `${top.path}.${value}` : value;
        if (top.keys.has(value)) repeated.push(path);
        top.keys.add(value);
        top.next = path;
      }
    } else if (c === '{' || c === '[') {
      const path = top === undefined ? '' : top.keys ? (top.next ?? '') : `${top.path}[]`;
      open.push(c === '{' ? { keys: new Set(), path } : { path });
      i++;
    } else if (c === '}' || c === ']') {
      open.pop();
      i++;
    } else i++;
  }
  return repeated;
}
