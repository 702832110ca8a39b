// `npm run bench -- lists [--store postgres] [--contacts N]`: builds a contact list of N (default 1,000,000)
// contacts through the store functions (batched inserts, one transaction per batch), then sends one `sms` to the
// list over HTTP with add_dynamic 1: the list is expanded into a campaign of N message rows, page by page.
// Prints the build time, the send's time and rows written, and peak RSS. Target: peak RSS under 400 MB.
import { request } from 'undici';
import { countContacts, createContactList, insertContacts, type NewContact } from '../src/store/contacts.ts';
import { benchStore, peakRssMb, startBenchService } from './lib/service.ts';

const contactsArg = process.argv.indexOf('--contacts');
const total = contactsArg >= 0 ? Number(process.argv[contactsArg + 1]) : 1_000_000;
const BATCH = 10_000;
const TARGET_RSS_MB = 400;
const store = benchStore();
const bench = await startBenchService(store);
const seconds = (from: bigint) => Math.round(Number(process.hrtime.bigint() - from) / 1e6) / 1000;

function batch(start: number, size: number): NewContact[] {
  return Array.from({ length: size }, (_, k) => {
    const i = start + k;
    return {
      phone: `9725${String(i).padStart(8, '0')}`,
      df1: `Contact ${i}`,
      df2: `${String((i % 28) + 1).padStart(2, '0')}/${String((i % 12) + 1).padStart(2, '0')}/19${String(i % 100).padStart(2, '0')}`,
      df3: null,
      df4: null,
      df5: null,
      df6: null,
    };
  });
}

try {
  await bench.admin('create-account', 'bench', '--password', 'bench-password', '--credits', String(total * 2));
  await bench.admin('verify-sender', 'bench', 'Yona');
  const token = (await bench.admin('create-token', 'bench')).at(-1)!;
  const { db } = bench.service.store;
  const account = await db
    .selectFrom('accounts')
    .select('id')
    .where('username', '=', 'bench')
    .executeTakeFirstOrThrow();
  const listId = await createContactList(db, account.id, 'Million', Date.now());

  const insertStart = process.hrtime.bigint();
  for (let start = 0; start < total; start += BATCH) {
    const rows = batch(start, Math.min(BATCH, total - start));
    await db.transaction().execute((trx) => insertContacts(trx, listId, rows, Date.now()));
  }
  const insertS = seconds(insertStart);
  const counted = await countContacts(db, listId);
  if (counted !== total) throw new Error(`list holds ${counted} contacts, expected ${total}`);

  const rssBeforeSend = await peakRssMb();

  // The real send path: one sms to the whole list, each contact's fields merged into its text.
  const body = JSON.stringify({
    sms: {
      user: { username: 'bench' },
      source: 'Yona',
      destinations: { cl_id: String(listId) },
      add_dynamic: '1',
      message: 'Hello [DYNAMIC_FIELD1], born [df2]',
    },
  });
  const sendStart = process.hrtime.bigint();
  const res = await request(`${bench.httpUrl}/api`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body,
  });
  const reply = (await res.body.json()) as {
    status: number;
    recipients?: number;
    campaign_id?: number;
    message?: string;
  };
  const sendS = seconds(sendStart);
  if (reply.status !== 0) throw new Error(`send failed: ${JSON.stringify(reply)}`);
  const written = await db
    .selectFrom('messages')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('campaign_id', '=', reply.campaign_id!)
    .executeTakeFirstOrThrow();
  if (Number(written.n) !== total) throw new Error(`campaign holds ${written.n} messages, expected ${total}`);

  const peak = await peakRssMb();
  console.log(
    JSON.stringify({
      bench: 'lists',
      store,
      contacts: total,
      insert_s: insertS,
      insert_rows_per_s: Math.round(total / insertS),
      send_s: sendS,
      send_recipients: reply.recipients,
      send_rows_written: Number(written.n),
      send_rows_per_s: Math.round(total / sendS),
      peak_rss_before_send_mb: rssBeforeSend,
      peak_rss_mb: peak,
      target_rss_mb: TARGET_RSS_MB,
      meets_target: peak < TARGET_RSS_MB,
    }),
  );
} finally {
  await bench.close();
}
