// This build's version (package.json's, bundled in) and how two versions compare. The store records the version
// that last migrated it (store/engine/store-version.ts), so an older build refuses a store a newer one has changed.
import pkg from '../../package.json' with { type: 'json' };

export const VERSION: string = pkg.version;

/** Negative, zero or positive as `a` is older than, the same as, or newer than `b` (major.minor.patch). */
export function compareVersions(a: string, b: string): number {
  const parts = (v: string) => v.split(/[.+-]/, 3).map((n) => Number.parseInt(n, 10) || 0);
  const [x, y] = [parts(a), parts(b)];
  for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return (x[i] ?? 0) - (y[i] ?? 0);
  return 0;
}
