// Usernames unique without regard to case (`TSUB1` beside `tsub1` confuses people and logs): a unique index on
// lower(username). Existing accounts whose names differ only by case are never merged: the migration reports them
// and stops, and the operator renames all but one of each group (docs/safe-by-default.md, "Usernames are unique without regard to case").
import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../types.ts';

export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  const clashes = await sql<{ folded: string; names: string }>`
    select lower(username) as folded, count(*) as n from accounts group by lower(username) having count(*) > 1`.execute(
    db,
  );
  if (clashes.rows.length > 0) {
    const folded = clashes.rows.map((r) => r.folded);
    const rows = await db
      .selectFrom('accounts')
      .select(['id', 'username'])
      .where(sql`lower(username)`, 'in', folded)
      .orderBy('id')
      .execute();
    const list = rows.map((r) => `${r.username} (id ${r.id})`).join(', ');
    throw new Error(
      `usernames must be unique without regard to case, and these accounts differ only by case: ${list}. ` +
        'Nothing was changed. Rename all but one of each group (for example: ' +
        "UPDATE accounts SET username = 'tsub1-b' WHERE id = 42), then start Yona again; " +
        'see docs/safe-by-default.md, "Usernames are unique without regard to case".',
    );
  }
  await db.schema
    .createIndex('accounts_username_any_case')
    .unique()
    .on('accounts')
    .expression(sql`lower(username)`)
    .execute();
}
