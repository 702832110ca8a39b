// The console's finer points over HTTPS without a browser, on both stores: the send preview lists each number
// left out with its reason (blocked, invalid, a landline, abroad, too short, repeated) and apart the filtered
// handsets; the two-factor setup shows a QR code of its otpauth:// address drawn by the service; text customers
// and recipients wrote is marked dir="auto"; dates are typed as shown (dd/mm/yyyy, ISO still read); the delivery
// chart names its axes and lines in plain words, in English and Hebrew.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import qrcode from 'qrcode-generator';
import { ConsoleClient } from '../../helpers/console-client.ts';
import { startTestService, type TestService } from '../../helpers/service.ts';
import { storeTargets } from '../../helpers/stores.ts';
import { newSender, type Sender } from '../../operations/send-helpers.ts';

const unescapeHtml = (html: string) =>
  html.replace(/&#(\d+);/g, (_m, code: string) => String.fromCharCode(Number(code)));

/** The rows of the table captioned `caption`, as "cell | cell" lines without tags. */
function tableRows(html: string, caption: string): string[] {
  const at = html.indexOf(`<caption>${caption}</caption>`);
  if (at < 0) return [];
  const body = html.slice(at, html.indexOf('</table>', at));
  return [...body.matchAll(/<tr>(.*?)<\/tr>/g)]
    .filter((m) => m[1].startsWith('<td'))
    .map((m) => unescapeHtml(m[1].replace(/<\/td><td[^>]*>/g, ' | ').replace(/<[^>]+>/g, '')));
}

/** The dark modules of the console's QR code SVG, read back from its path (a 4-module quiet zone around). */
function svgModules(svg: string): { count: number; dark: Set<string> } {
  const count = Number(/data-modules="(\d+)"/.exec(svg)?.[1]);
  const d = /<path fill="#000" d="([^"]*)"/.exec(svg)?.[1] ?? '';
  const dark = new Set([...d.matchAll(/M(\d+) (\d+)h1v1h-1z/g)].map((m) => `${Number(m[2]) - 4},${Number(m[1]) - 4}`));
  return { count, dark };
}

function dayIn(timeZone: string, offsetDays = 0): string {
  return new Intl.DateTimeFormat('en-GB', { timeZone, day: '2-digit', month: '2-digit', year: 'numeric' }).format(
    Date.now() + offsetDays * 86_400_000,
  );
}

for (const target of await storeTargets()) {
  describe(`console details (${target.name})`, () => {
    let t: TestService;
    let s: Sender;
    let web: ConsoleClient;
    let hebrewCampaign: number;

    before(async () => {
      t = await startTestService(target);
      s = await newSender(t, 'dana', 1000);
      await s.call('addNumBL', { phones: ['0529990001'] });
      await t.service.store.db
        .insertInto('filtered_phones')
        .values({ phone: '972521112222', source: 'operator', created_at: Date.now() })
        .execute();
      const sent = await s.sms({
        destinations: { phone: ['0521230001', '0521230002', '0521230003'] },
        message: 'שלום לכולם, מבצע חורף',
        campaign_name: 'מבצע חורף',
      });
      assert.equal(sent.status, 0, JSON.stringify(sent));
      hebrewCampaign = sent.campaign_id;
      // Outcomes as receipts leave them, a few seconds apart: two delivered, one failed.
      const db = t.service.store.db;
      const ids = await db.selectFrom('messages').select('id').where('campaign_id', '=', hebrewCampaign).execute();
      for (const [i, { id }] of ids.entries()) {
        await db
          .updateTable('messages')
          .set({ state: 'done', status: i === 2 ? 101 : 102, status_at: Date.now() + i * 5000 })
          .where('id', '=', Number(id))
          .execute();
      }
      web = new ConsoleClient(t.httpsUrl);
      assert.equal((await web.login('dana', 'secret-pw')).status, 303);
    });
    after(() => t?.close());

    it('previews a send with every number left out listed with its reason, and the filtered handsets apart', async () => {
      await web.get('/console/send');
      const typed = [
        '0521234567',
        '052-123-4567',
        '12',
        '031234567',
        '0529990001',
        'abc',
        '+447911123456',
        '0521112222',
      ].join('\n');
      const res = await web.post('/console/send', {
        action: 'preview',
        phones: typed,
        source: 'Yona',
        message: 'Hello',
      });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(tableRows(res.text, 'Numbers this send leaves out, and why').sort(), [
        '+447911123456 | A number abroad: this account does not send abroad',
        '031234567 | Not a mobile number (a landline cannot receive texts)',
        '052-123-4567 | Given more than once: sent once',
        '0529990001 | On your blocklist',
        '12 | Too short to be a phone number',
        'abc | Not a valid phone number',
      ]);
      assert.ok(res.text.includes('known to refuse text messages'), 'the filtered handsets are named');
      assert.deepEqual(tableRows(res.text, 'Filtered handset: refuses texts'), [
        '0521112222 | Filtered handset: refuses texts',
      ]);
      const none = await web.post('/console/send', {
        action: 'preview',
        phones: '0521234567',
        source: 'Yona',
        message: 'Hi',
      });
      assert.ok(none.text.includes('No number is left out.'));
    });

    it('shows a QR code of the otpauth:// address, drawn by the service, beside the key as text', async () => {
      await web.get('/console/security');
      const res = await web.post('/console/security/totp/start');
      assert.equal(res.status, 200);
      const uri = unescapeHtml(
        /<p class="muted mono uri" id="totp-uri" dir="ltr">([^<]+)<\/p>/.exec(res.text)?.[1] ?? '',
      );
      assert.match(uri, /^otpauth:\/\/totp\/Yona%3Adana\?secret=[A-Z2-7]+&issuer=Yona/);
      const key = /dir="ltr" id="totp-secret">([^<]+)</.exec(res.text)?.[1].replace(/ /g, '');
      assert.equal(new URL(uri).searchParams.get('secret'), key);
      const svg = /<svg class="qr"[\s\S]*?<\/svg>/.exec(res.text)?.[0] ?? '';
      assert.match(svg, /role="img" aria-label="QR code of the authenticator app key for dana"/);
      const drawn = svgModules(svg);
      const qr = qrcode(0, 'M');
      qr.addData(uri, 'Byte');
      qr.make();
      assert.equal(drawn.count, qr.getModuleCount());
      const expected = new Set<string>();
      for (let r = 0; r < drawn.count; r++)
        for (let c = 0; c < drawn.count; c++) if (qr.isDark(r, c)) expected.add(`${r},${c}`);
      assert.deepEqual(drawn.dark, expected, 'every module of the QR code of that address');
      assert.ok(!/<img|https?:\/\/(?!www\.w3\.org)/.test(svg), 'nothing fetched from elsewhere');
    });

    it('marks what customers and recipients wrote with dir="auto"', async () => {
      const log = await web.get('/console/messages');
      assert.match(
        log.text,
        /<a class="clip" dir="auto" href="\/console\/messages\/\d+" title="שלום לכולם, מבצע חורף">/,
      );
      assert.match(log.text, /<span dir="auto" class="clip" title="מבצע חורף">מבצע חורף<\/span>/);
      const list = await web.get('/console/campaigns');
      assert.match(list.text, /<td data-label="Name"><span dir="auto">מבצע חורף<\/span><\/td>/);
      const campaign = await web.get(`/console/campaigns/${hebrewCampaign}`);
      assert.match(campaign.text, /<blockquote dir="auto" class="message-text">שלום לכולם, מבצע חורף<\/blockquote>/);
      const send = await web.get('/console/send');
      assert.match(send.text, /<textarea id="send-message" name="message"[^>]* dir="auto"/);
      assert.match(send.text, /<input id="send-name" name="name"[^>]* dir="auto"/);
    });

    it('reads dates as shown (dd/mm/yyyy), and ISO dates still', async () => {
      const zone = 'Asia/Jerusalem';
      const rows = async (query: string) => {
        const res = await web.get(`/console/messages?${query}`);
        assert.ok(!res.text.includes('not understood'), `${query}: ${/class="notice[^<]*/.exec(res.text)?.[0]}`);
        return [...res.text.matchAll(/<tr><td[ >]/g)].length;
      };
      const today = dayIn(zone);
      const [d, m, y] = today.split('/');
      assert.equal(await rows(`from=${today}&to=${today}`), 3);
      assert.equal(await rows(`from=${dayIn(zone, 1)}`), 0);
      assert.equal(await rows(`to=${dayIn(zone, -1)}`), 0);
      assert.equal(await rows(`from=${y}-${m}-${d}&to=${y}-${m}-${d}`), 3);
      const form = await web.get(`/console/messages?from=${today}`);
      assert.match(
        form.text,
        new RegExp(`<input id="f-from" name="from" type="text" value="${today}"[^>]*placeholder="dd/mm/yyyy"`),
      );
      const bad = await web.get('/console/messages?from=31/02/2026');
      assert.match(bad.text, /class="notice error"[^>]*>[^<]*from/);

      await web.get('/console/send');
      const preview = (timing: string) =>
        web.post('/console/send', { action: 'preview', phones: '0521234567', source: 'Yona', message: 'Hi', timing });
      assert.match((await preview('01/01/2040 10:00')).text, /Scheduled for 01\/01\/40 10:00\./);
      assert.match((await preview('2040-01-01T10:00')).text, /Scheduled for 01\/01\/40 10:00\./);
      const wrong = await preview('32/01/2040 10:00');
      assert.equal(wrong.status, 400);
      assert.ok(wrong.text.includes('The send time is not a date: write it as dd/mm/yyyy hh:mm.'));
    });

    it("names the delivery chart's axes and lines in plain words, in English and in Hebrew", async () => {
      const labels = async () => {
        const page = await web.get(`/console/campaigns/${hebrewCampaign}`);
        const json = /<script type="application\/json" id="chart-data">([^<]*)<\/script>/.exec(page.text)?.[1];
        return JSON.parse(json ?? '{}').labels;
      };
      assert.deepEqual(await labels(), {
        time: 'Time (Asia/Jerusalem)',
        count: 'Messages (total so far)',
        delivered: 'Delivered (total so far)',
        failed: 'Failed (total so far)',
      });
      web.cookies.set('yona_lang', 'he');
      try {
        assert.deepEqual(await labels(), {
          time: 'זמן (Asia/Jerusalem)',
          count: 'הודעות (מצטבר עד כה)',
          delivered: 'נמסרו (מצטבר עד כה)',
          failed: 'נכשלו (מצטבר עד כה)',
        });
      } finally {
        web.cookies.delete('yona_lang');
      }
    });
  });
}
