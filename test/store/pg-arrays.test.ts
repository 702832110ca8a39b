// The send group's array parameters written as PostgreSQL array text: PostgreSQL reads back exactly the values
// given (quotes, backslashes, braces, commas, the word NULL, empty strings, nulls, big numbers), as it does what
// node-postgres writes for the same arrays.
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import pg from 'pg';
import { pgArray } from '../../src/store/pg-arrays.ts';

const url = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
let client: pg.Client | undefined;

before(async () => {
  const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1500 });
  try {
    await c.connect();
    client = c;
  } catch {
    if (process.env.REQUIRE_POSTGRES === '1') throw new Error('PostgreSQL is required');
  }
});
after(async () => client?.end());

const TEXTS = [
  'plain',
  '',
  'NULL',
  'null',
  'a "quoted" word',
  'back\\slash',
  '\\"',
  '{braces},commas',
  ' spaced ',
  'שלום',
  null,
  'x\ny',
];
const BIGINTS = [0, 1, -5, 9_007_199_254_740_991, null, 1_789_000_000_000];

async function roundTrip(sqlType: string, param: unknown): Promise<unknown[]> {
  const { rows } = await client!.query(`select v from unnest($1::${sqlType}[]) with ordinality as u(v, n) order by n`, [
    param,
  ]);
  return rows.map((r) => r.v);
}

it('text arrays come back as given, as node-postgres own encoding does', async (t) => {
  if (!client) return t.skip('no PostgreSQL');
  assert.equal(typeof pgArray(TEXTS), 'string');
  assert.deepEqual(await roundTrip('text', pgArray(TEXTS)), TEXTS);
  assert.deepEqual(await roundTrip('text', TEXTS), TEXTS);
});

it('number arrays come back as given into bigint and int columns', async (t) => {
  if (!client) return t.skip('no PostgreSQL');
  assert.deepEqual(await roundTrip('bigint', pgArray(BIGINTS)), await roundTrip('bigint', BIGINTS));
  assert.deepEqual(
    (await roundTrip('bigint', pgArray(BIGINTS))).map((v) => (v === null ? null : Number(v))),
    BIGINTS,
  );
  assert.deepEqual(await roundTrip('int', pgArray([3, undefined, -1])), [3, null, -1]);
  assert.deepEqual(await roundTrip('bool', pgArray([true, false, null])), [true, false, null]);
  assert.deepEqual(await roundTrip('text', pgArray([])), []);
});

it('an array of other values is left to node-postgres', () => {
  const dates = [new Date(0)];
  assert.equal(pgArray(dates), dates);
  assert.equal(pgArray(['a', { b: 1 }]).length, 2);
});
