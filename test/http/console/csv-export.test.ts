// The console's CSV downloads read by a spreadsheet, on both stores: whatever separator the reader's locale splits
// on (comma; semicolon, as Excel does in many European locales; tab or pipe, as LibreOffice may be told), and
// whether or not it honours quotes, no cell starts a formula (in `x;=1+1` and `-2+3;=cmd|' /C calc'!A0` each = + -
// @ at a cell's possible start gets an apostrophe); and a phone is written as a quoted tab then its digits, which
// both keep as text, its leading 0 included.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ConsoleClient } from '../../helpers/console-client.ts';
import type { TestService } from '../../helpers/service.ts';
import { storeTargets } from '../../helpers/stores.ts';
import { newSender, startSendingService } from '../../operations/send-helpers.ts';

/** Texts and what a comma-splitting spreadsheet shows of each. */
const HOSTILE: Array<[string, string]> = [
  ['x;=1+1', "x;'=1+1"],
  ["-2+3;=cmd|' /C calc'!A0", "'-2+3;'=cmd|' /C calc'!A0"],
  ['a\t=HYPERLINK("http://x.test")', 'a\t\'=HYPERLINK("http://x.test")'],
  ['b|@SUM(1+1)', "b|'@SUM(1+1)"],
  ['plain,  =2+2', "plain,  '=2+2"],
  ['line\n+1 and 2 - 1', "line\n'+1 and 2 - 1"],
  ['Sale - 20% off, today', 'Sale - 20% off, today'],
];
const texts = HOSTILE.map(([text]) => text);

/** The cells of one CSV line as a spreadsheet splitting on `sep` reads them (RFC 4180 quotes honoured or not). */
function cells(line: string, sep: string, quotes = true): string[] {
  if (!quotes) return line.split(sep);
  const out: string[] = [];
  let cell = '';
  let quoted = false;
  let started = false;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i];
    if (quoted) {
      if (ch === '"' && line[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else cell += ch;
    } else if (ch === '"' && !started) {
      quoted = true;
      started = true;
    } else if (ch === sep) {
      out.push(cell);
      cell = '';
      started = false;
    } else {
      cell += ch;
      started = true;
    }
  }
  out.push(cell);
  return out;
}

/** Records of a whole CSV text (a quoted field may hold a line break). */
function records(text: string): string[] {
  const out: string[] = [];
  let current = '';
  for (const piece of text.replace(/^\uFEFF/, '').split('\r\n')) {
    current = current ? `${current}\r\n${piece}` : piece;
    if ((current.match(/"/g)?.length ?? 0) % 2 === 0) {
      if (current) out.push(current);
      current = '';
    }
  }
  return out;
}

const runsAsFormula = (cell: string) => /^[=+\-@]/.test(cell.trimStart()) && !/^-?\d+(\.\d+)?$/.test(cell);

for (const target of await storeTargets()) {
  describe(`console CSV exports in a spreadsheet (${target.name})`, () => {
    let t: TestService;
    let web: ConsoleClient;

    before(async () => {
      t = await startSendingService(target);
      const s = await newSender(t, 'erin', 1000);
      for (const [i, text] of texts.entries()) {
        const reply = await s.sms({
          destinations: { phone: [`05212345${String(i).padStart(2, '0')}`] },
          message: text,
          campaign_name: text,
          timing: '01/01/40 10:00',
        });
        assert.equal(reply.status, 0, reply.message);
      }
      web = new ConsoleClient(t.httpsUrl);
      assert.equal((await web.login('erin', 'secret-pw')).status, 303);
    });
    after(() => t?.close());

    it('gives no formula cell whatever the separator, and keeps each hostile text whole in one cell', async () => {
      const csv = await web.get('/console/messages.csv');
      assert.equal(csv.status, 200);
      const lines = records(csv.text);
      assert.equal(lines.length, HOSTILE.length + 1);
      for (const sep of [',', ';', '\t', '|']) {
        for (const quotes of [true, false]) {
          // A reader that ignores quotes also breaks records at every line break.
          const all = quotes ? lines : lines.flatMap((l) => l.split(/\r\n|\n|\r/));
          for (const line of all) {
            const formulas = cells(line, sep, quotes).filter(runsAsFormula);
            assert.deepEqual(formulas, [], `split on ${JSON.stringify(sep)}, quotes ${quotes}: ${line}`);
          }
        }
      }
      const header = cells(lines[0], ',');
      const shown = HOSTILE.map(([, cell]) => cell).sort();
      assert.deepEqual(
        lines
          .slice(1)
          .map((l) => cells(l, ',')[header.indexOf('text')])
          .sort(),
        shown,
      );
      assert.deepEqual(
        lines
          .slice(1)
          .map((l) => cells(l, ',')[header.indexOf('campaign_name')])
          .sort(),
        shown,
      );
      assert.ok(csv.text.includes(`"'-2+3;'=cmd|' /C calc'!A0"`), 'defused and quoted');
    });

    it('writes phones as a quoted tab and their digits, so spreadsheets keep the leading 0', async () => {
      const csv = await web.get('/console/messages.csv');
      const lines = records(csv.text);
      const phoneAt = cells(lines[0], ',').indexOf('phone');
      const phones = lines.slice(1).map((l) => cells(l, ',')[phoneAt]);
      assert.deepEqual(phones.sort(), texts.map((_, i) => `\t05212345${String(i).padStart(2, '0')}`).sort());
      assert.ok(csv.text.includes(',"\t0521234500",'), csv.text.slice(0, 400));
      // Nothing a spreadsheet could run follows the tab: digits only.
      assert.ok(phones.every((p) => /^\t\d+$/.test(p)));
      const campaign = await web.get(
        `/console/campaigns/${(await t.service.store.db.selectFrom('campaigns').select('id').executeTakeFirstOrThrow()).id}/messages.csv`,
      );
      assert.match(campaign.text, /,"\t05212345\d\d",/);
    });
  });
}
