// How far apart two names are, for "did you mean" suggestions (the CLI's commands, the API's field names).

/**
 * Edit distance: insertions, deletions and substitutions count one each; with `swaps`, so does a swap of two
 * neighbouring characters (optimal string alignment). Past `limit` it stops early and returns a value above it.
 */
export function editDistance(
  a: string,
  b: string,
  { swaps = false, limit = Number.POSITIVE_INFINITY }: { swaps?: boolean; limit?: number } = {},
): number {
  let before: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost);
      if (swaps && i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, before[j - 2] + 1);
      current.push(d);
      best = Math.min(best, d);
    }
    if (best > limit) return best;
    before = previous;
    previous = current;
  }
  return previous[b.length];
}
