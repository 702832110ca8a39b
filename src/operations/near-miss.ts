// Field names checked against what an operation knows: a key that is not a field but nearly one (a small edit
// distance, or the same but for case, `_` and `-`) is refused with status 2 naming the fix, so that a typo in an
// optional field (`timming`) never sends what the caller did not mean. Keys far from every field are extras that
// clients of the 019 API send: they stay accepted, and are listed for /api/test and the log.
//
// The known fields come from each operation's zod schema (object shapes walked through optional, preprocess and
// array wrappers) and, for the shapes a handler reads itself, from the operation's own `shapes`. The document model is xml2js's:
// `$` holds attributes and `_` text, and neither is a field.
import type { z } from 'zod';
import { ApiError } from '../domain/errors.ts';
import type { Operation, Shape } from './types.ts';
import { editDistance } from '../domain/edit-distance.ts';

export type { Shape } from './types.ts';

const leaf = undefined;

/** Every request's `user` element: `password` is what older clients send beside the username. */
const USER: Shape = { username: leaf, password: leaf };

/** Fields every operation takes besides its schema's. */
const COMMON: Shape = { user: USER };

type ZodDef = { type: string; shape?: Record<string, z.ZodType>; [k: string]: unknown };
const defOf = (schema: unknown): ZodDef | undefined => (schema as { _zod?: { def: ZodDef } })?._zod?.def;

/** The object shape a zod schema describes, through its wrappers; undefined for anything else. */
export function shapeOfSchema(schema: unknown): Shape | undefined {
  const def = defOf(schema);
  if (!def) return undefined;
  switch (def.type) {
    case 'object': {
      const out: Record<string, Shape | undefined> = {};
      for (const [k, v] of Object.entries(def.shape ?? {})) out[k] = shapeOfSchema(v);
      return out;
    }
    case 'optional':
    case 'nullable':
    case 'default':
    case 'prefault':
    case 'readonly':
    case 'catch':
      return shapeOfSchema(def.innerType);
    case 'array':
      return shapeOfSchema(def.element);
    case 'pipe':
      return shapeOfSchema(def.out) ?? shapeOfSchema(def.in);
    default:
      return undefined;
  }
}

const shapes = new WeakMap<Operation<z.ZodType>, Shape>();

/** The whole shape of an operation's document: schema fields, hand-read shapes and the common ones. */
export function operationShape(op: Operation<z.ZodType>, extra: Shape = {}): Shape {
  let shape = shapes.get(op);
  if (!shape) {
    const fromSchema = shapeOfSchema(op.input) ?? {};
    const merged: Record<string, Shape | undefined> = { ...COMMON, ...extra };
    for (const [k, v] of Object.entries(fromSchema)) merged[k] = op.shapes?.[k] ?? v;
    shape = merged;
    shapes.set(op, shape);
  }
  return shape;
}

/** The same name but for case, `_` and `-`. */
function sameName(key: string, field: string): boolean {
  return key.toLowerCase().replace(/[_-]/g, '') === field.toLowerCase().replace(/[_-]/g, '');
}

/** `timming` -> `timing`: same but for case, `_` and `-`, or within a small edit distance for its length. */
export function nearMiss(key: string, field: string): boolean {
  if (sameName(key, field)) return true;
  const a = key.toLowerCase();
  const b = field.toLowerCase();
  const shorter = Math.min(a.length, b.length);
  const allowed = shorter >= 5 ? 2 : shorter >= 3 ? 1 : 0;
  return (
    allowed > 0 &&
    Math.abs(a.length - b.length) <= allowed &&
    editDistance(a, b, { swaps: true, limit: allowed }) <= allowed
  );
}

/** Fields of a shape below its own level, with their paths (`destinations.destination.phone`). */
function deeperFields(shape: Shape, prefix = ''): Array<{ name: string; path: string }> {
  const out: Array<{ name: string; path: string }> = [];
  for (const [name, inner] of Object.entries(shape)) {
    if (!inner) continue;
    for (const [child, grand] of Object.entries(inner)) {
      const path = `${prefix}${name}.${child}`;
      out.push({ name: child, path });
      if (grand) out.push(...deeperFields({ [child]: grand }, `${prefix}${name}.`));
    }
  }
  return out;
}

const isAttributeOrText = (key: string) => key === '$' || key === '_';

/**
 * Checks a document's keys against the operation's shape: throws status 2 for a near miss, returns the paths of
 * the other unknown keys (`sms.tracking`). A key misplaced one level up (`cl.phones`, whose `phone` belongs in
 * `cl.destinations.destination`) counts as a near miss too, below the root element, and so does a key one level
 * down from where it belongs (`bulk.messages.timing`, a field of `bulk`).
 */
export function checkFieldNames(root: string, shape: Shape, doc: unknown): string[] {
  const unknown: string[] = [];
  walk(root, shape, doc, true, unknown);
  return unknown;
}

/** The object a level holds its fields in, and where: for a key that belongs one level out (`bulk.messages.timing`). */
interface Outer {
  path: string;
  shape: Shape;
}

function walk(path: string, shape: Shape, value: unknown, top: boolean, unknown: string[], outer?: Outer): void {
  if (Array.isArray(value)) {
    for (const item of value) walk(path, shape, item, top, unknown, outer);
    return;
  }
  if (value === null || typeof value !== 'object') return;
  for (const [key, inner] of Object.entries(value as Record<string, unknown>)) {
    if (isAttributeOrText(key)) continue;
    if (Object.hasOwn(shape, key)) {
      const child = shape[key];
      if (child) walk(`${path}.${key}`, child, inner, false, unknown, { path, shape });
      continue;
    }
    const near = Object.keys(shape).find((field) => nearMiss(key, field));
    const misplaced = near ? undefined : top ? undefined : deeperFields(shape).find((f) => nearMiss(key, f.name));
    // A field of the level above, written inside this one (a bulk's `timing` inside its `messages`).
    const above = near || misplaced || !outer ? undefined : Object.keys(outer.shape).find((f) => sameName(key, f));
    const fix = near ?? misplaced?.path ?? (above === undefined ? undefined : `${outer?.path}.${above}`);
    if (fix !== undefined) throw new ApiError(2, `unknown field "${key}" in ${path}; did you mean "${fix}"?`);
    unknown.push(`${path}.${key}`);
  }
}

/** Remembers which unknown keys were already logged, per account: each is logged once (bounded memory). */
export class UnknownFieldLog {
  private seen = new Set<string>();
  constructor(private readonly max = 100_000) {}

  /** The keys not yet reported for this account, now marked as reported. */
  firstSeen(accountId: number, keys: readonly string[]): string[] {
    const fresh: string[] = [];
    for (const key of keys) {
      const id = `${accountId}\u0000${key}`;
      if (this.seen.has(id)) continue;
      if (this.seen.size >= this.max) this.seen.clear();
      this.seen.add(id);
      fresh.push(key);
    }
    return fresh;
  }
}
