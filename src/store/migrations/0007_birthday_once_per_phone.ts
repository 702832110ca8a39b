// A birthday greeting goes to a number once per campaign and year, even when its contact was removed from the
// list and added again (a new contact row): greetings become unique by phone, not only by contact row.
import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../types.ts';

export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  // Keep the first greeting where a re-added contact was already greeted twice.
  await sql`delete from birthday_sends where id not in (select min(id) from birthday_sends group by campaign_id, phone, year)`.execute(
    db,
  );
  await db.schema
    .createIndex('birthday_sends_once_per_phone')
    .on('birthday_sends')
    .columns(['campaign_id', 'phone', 'year'])
    .unique()
    .execute();
}
