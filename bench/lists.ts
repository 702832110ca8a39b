// `npm run bench -- lists [--store postgres] [--contacts N]`: builds a contact list of N (default 1,000,000)
// contacts through the store functions (batched inserts, one transaction per batch), then streams the whole
// list with streamContacts as the send path does. Target: peak RSS under 400 MB.
import { countContacts, createContactList, insertContacts, streamContacts, type NewContact } from '../src/store/contacts.ts';
import { mergeDynamicFields } from '../src/domain/templates.ts';
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
      df3: null, df4: null, df5: null, df6: null,
    };
  });
}

try {
  await bench.admin('create-account', 'bench', '--password', 'bench-password');
  const { db } = bench.service.store;
  const account = await db.selectFrom('accounts').select('id').where('username', '=', 'bench').executeTakeFirstOrThrow();
  const listId = await createContactList(db, account.id, 'Million', Date.now());

  const insertStart = process.hrtime.bigint();
  for (let start = 0; start < total; start += BATCH) {
    const rows = batch(start, Math.min(BATCH, total - start));
    await db.transaction().execute((trx) => insertContacts(trx, listId, rows, Date.now()));
  }
  const insertS = seconds(insertStart);
  const counted = await countContacts(db, listId);
  if (counted !== total) throw new Error(`list holds ${counted} contacts, expected ${total}`);

  // The send path's shape of work: every contact read once, its text merged, nothing kept.
  const streamStart = process.hrtime.bigint();
  let streamed = 0;
  let chars = 0;
  for await (const contacts of streamContacts(db, listId)) {
    for (const c of contacts) chars += mergeDynamicFields('Hello [DYNAMIC_FIELD1], born [df2]', c).length;
    streamed += contacts.length;
  }
  const streamS = seconds(streamStart);
  if (streamed !== total || chars === 0) throw new Error(`streamed ${streamed} contacts, expected ${total}`);

  const peak = await peakRssMb();
  console.log(JSON.stringify({
    bench: 'lists', store, contacts: total, insert_s: insertS, insert_rows_per_s: Math.round(total / insertS),
    stream_s: streamS, stream_rows_per_s: Math.round(total / streamS), peak_rss_mb: peak,
    target_rss_mb: TARGET_RSS_MB, meets_target: peak < TARGET_RSS_MB,
  }));
} finally {
  await bench.close();
}
