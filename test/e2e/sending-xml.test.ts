// The send path in XML over real HTTP on every store: each field rule and status code of sms, bulk and cancel
// with real XML bodies (992, 515, 9, 933, 989, 987, 988, 986, 714, 715, 980, 981, 8, 4, 12, 2, 7, bulk > 2500,
// cancel 955/966/977 and by name), asserting the exact status, the envelope (root named as the operation,
// <status> and <message> as its first children) and that a refused send wrote nothing and charged nothing;
// the fields that succeed (tag, add_dynamic, add_unsubscribe 2/3, temp_bl, includes_international, tts,
// timing, links, campaign_name) checked in the stored rows; and an /api/test bulk that prices and stores nothing.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { fromZoned } from '../../src/domain/dates.ts';
import { campaignLinks } from '../../src/store/links.ts';
import type { TestService } from '../helpers/service.ts';
import { storeTargets } from '../helpers/stores.ts';
import {
  campaignRow,
  messagesOf,
  newSender,
  sendTableCounts,
  startSendingService,
  xmlField,
  xmlStatus,
  type Sender,
} from '../operations/send-helpers.ts';

type Fields = Record<string, string | undefined>;
type Row = [status: number, label: string, fields: Fields, reply?: RegExp];
type Check = (x: {
  text: string;
  campaign: Awaited<ReturnType<typeof campaignRow>>;
  rows: Awaited<ReturnType<typeof messagesOf>>;
}) => void;

const ZONE = 'Asia/Jerusalem';
const PUBLIC = 'https://yona.example.test';
const at = (day: number, hour: number, minute = 0) =>
  fromZoned({ year: 2026, month: 6, day, hour, minute, second: 0 }, ZONE);
/** `<phone>` elements; a value already starting with `<` is taken as it is. */
const P = (...phones: string[]) => phones.map((p) => (p.startsWith('<') ? p : `<phone>${p}</phone>`)).join('');
const item = (phone: string, message = 'hi', source = 'Yona') =>
  `<sms><source>${source}</source><destinations>${P(phone)}</destinations><message>${message}</message></sms>`;
const items = (n: number) =>
  Array.from({ length: n }, (_, i) => item(`0520${String(i).padStart(6, '0')}`, `text ${i}`)).join('');
const SMS_DEFAULTS: Fields = { source: 'Yona', destinations: P('0501234567'), message: 'hello' };
const envelope = (root: string, status: number) =>
  new RegExp(`^<\\?xml version="1.0" encoding="UTF-8"\\?><${root}><status>${status}</status><message>[^<]+</message>`);
const recipient = (phone: string, reason: string, status: number, id?: string) =>
  `<recipient><phone>${phone}</phone>${id ? `<id>${id}</id>` : ''}<reason>${reason}</reason><status>${status}</status></recipient>`;

const smsFailures: Row[] = [
  [992, 'a source of 12 characters', { source: 'ABCDEFGHIJKL' }, /<message>[^<]*source/],
  [992, 'a source with +', { source: '+97250123' }],
  [992, 'a source with a space', { source: 'Yo na' }],
  [992, 'a Hebrew source', { source: 'יונה' }],
  [515, 'an unverified source', { source: 'Stranger' }, /<message>[^<]*Stranger/],
  [
    9,
    'destinations all too short or too long',
    { destinations: P('05012', '<phone id="L">050123456789</phone>') },
    new RegExp(
      `<rejected>${recipient('05012', 'too_short', 9)}${recipient('050123456789', 'too_long', 9, 'L')}</rejected>`,
    ),
  ],
  [
    933,
    'a destination that is no number',
    { destinations: P('abc') },
    /<reason>invalid<\/reason><status>933<\/status>/,
  ],
  [933, 'a landline', { destinations: P('031234567') }, /<reason>not_mobile<\/reason>/],
  [
    933,
    'a foreign number without includes_international',
    { destinations: P('+14155550123') },
    /<reason>international_not_allowed<\/reason>/,
  ],
  [
    933,
    'a foreign number with includes_international 0',
    { destinations: P('+14155550123'), includes_international: '0' },
  ],
  [989, 'a message of 1006 characters', { message: 'a'.repeat(1006) }, /<message>[^<]*1006/],
  [989, 'a Hebrew message of 1006 characters', { message: 'ש'.repeat(1006) }],
  [989, 'a campaign_name of 51 characters', { campaign_name: 'n'.repeat(51) }, /<message>[^<]*campaign_name/],
  [
    987,
    'add_dynamic 1 with a list and a phone',
    { destinations: `<cl_id>{L}</cl_id>${P('0501234567')}`, add_dynamic: '1' },
  ],
  [987, 'add_dynamic 1 with two lists', { destinations: '<cl_id>{L}</cl_id><cl_id>{L2}</cl_id>', add_dynamic: '1' }],
  [987, 'add_dynamic 1 with phones only', { add_dynamic: '1' }],
  [988, 'a list that does not exist', { destinations: '<cl_id>999999</cl_id>' }],
  [986, 'add_unsubscribe yes', { add_unsubscribe: 'yes' }],
  [986, 'add_unsubscribe 2.5', { add_unsubscribe: '2.5' }],
  [714, 'temp_bl 0', { temp_bl: '0' }],
  [714, 'temp_bl 15', { temp_bl: '15' }],
  [714, 'temp_bl x', { temp_bl: 'x' }],
  [714, 'temp_bl -1', { temp_bl: '-1' }],
  [980, 'a link that is no URL', { message: 'go [w]', links: '<link id="w">javascript:alert(1)</link>' }],
  [981, "a link to Yona's own /l/", { message: 'go [w]', links: `<link id="w">${PUBLIC}/l/AAAAAAAAAAAAAAAA</link>` }],
  [981, "a link to Yona's own /u/", { message: 'go [w]', links: `<link id="w">${PUBLIC}/u/AAAAAAAAAAAAAAAA</link>` }],
  [981, "a link to Yona's own /v/", { message: 'go [w]', links: `<link id="w">${PUBLIC}/v/AAAAAAAAAAAAAAAA</link>` }],
  [2, 'no message element', { message: undefined }, /<message>[^<]*message/],
  [2, 'an empty message element', { message: '' }, /<message>[^<]*message/],
  [2, 'no source element', { source: undefined }, /<message>[^<]*source/],
  [2, 'no destinations element', { destinations: undefined }, /<message>[^<]*destinations/],
  [2, 'an empty destinations element', { destinations: '' }, /<message>[^<]*destinations/],
  [2, 'timing in ISO form', { timing: '2026-06-02 08:30' }, /<message>[^<]*timing/],
  [2, 'timing on day 32', { timing: '32/01/26 10:00' }, /<message>[^<]*timing/],
  [2, 'timing without a time', { timing: '02/06/26' }, /<message>[^<]*timing/],
  [2, 'a tts type 5', { tts: '<type>5</type>' }, /<message>[^<]*tts\.type/],
  [2, 'a tts voice robot', { tts: '<type>2</type><voice>robot</voice>' }, /<message>[^<]*tts\.voice/],
];

const bulkFailures: Row[] = [
  [
    7,
    'a contact list inside an item',
    { messages: '<sms><source>Yona</source><destinations><cl_id>{L}</cl_id></destinations><message>a</message></sms>' },
  ],
  [2, 'more than 2500 items', { messages: items(2501) }, /<message>[^<]*2500/],
  [2, 'no messages', { messages: '' }, /<message>[^<]*messages/],
  [
    2,
    'an item without message',
    { messages: '<sms><source>Yona</source><destinations><phone>0501111111</phone></destinations></sms>' },
    /messages\.sms\[0\]\.message/,
  ],
  [992, 'an item with a bad source', { messages: item('0501111111', 'a', 'Bad+Source') }],
  [
    515,
    'a second item with an unverified source',
    { messages: item('0501111111') + item('0502222222', 'b', 'Other') },
    /messages\.sms\[1\]\.source/,
  ],
  [989, 'an item message of 1006 characters', { messages: item('0501111111', 'a'.repeat(1006)) }],
  [989, 'a batch campaign_name of 51 characters', { campaign_name: 'x'.repeat(51), messages: item('0501111111') }],
  [9, 'items all too short', { messages: item('12') + item('0501') }],
  [933, 'items all landlines', { messages: item('031234567') }],
  [714, 'a batch temp_bl of 20', { temp_bl: '20', messages: item('0501111111') }],
  [2, 'a batch timing of "tomorrow"', { timing: 'tomorrow', messages: item('0501111111') }, /<message>[^<]*timing/],
];

const targets = await storeTargets();
for (const target of targets) {
  describe(`sending in XML (${target.name})`, () => {
    let t: TestService;
    let s: Sender;
    let now = at(1, 10);
    const lists: Record<string, string> = {};
    const xmlOf = (root: string, who: Sender, fields: Fields) =>
      `<?xml version="1.0" encoding="UTF-8"?><${root}><user><username>${who.username}</username></user>` +
      Object.entries(fields)
        .filter(([, v]) => v !== undefined)
        .map(([k, v]) => `<${k}>${v!.replace(/\{(L2?)\}/g, (_, l) => lists[l])}</${k}>`)
        .join('') +
      `</${root}>`;
    const post = async (root: string, fields: Fields, o: { who?: Sender; dryRun?: boolean } = {}) => {
      const who = o.who ?? s;
      const res = await t.post(xmlOf(root, who, fields), {
        contentType: 'application/xml',
        token: who.token,
        dryRun: o.dryRun,
      });
      assert.equal(res.httpStatus, 200);
      assert.match(res.contentType, /application\/xml/);
      return { text: res.text, status: xmlStatus(res.text), field: (name: string) => xmlField(res.text, name) };
    };
    const sms = (fields: Fields, o: { who?: Sender; dryRun?: boolean } = {}) =>
      post('sms', { ...SMS_DEFAULTS, ...fields }, o);
    /** Sends, expects status 0, and returns the reply with the stored campaign and message rows. */
    const accepted = async (fields: Fields, who = s) => {
      const before = await who.balance();
      const reply = await sms(fields, { who });
      assert.equal(reply.status, 0, reply.text);
      assert.match(reply.text, envelope('sms', 0));
      const id = Number(reply.field('campaign_id'));
      assert.equal(reply.field('shipment_id'), String(id));
      const rows = await messagesOf(t, id);
      // One row per recipient, and one more per voice call (a tts send of type 3 texts and calls).
      assert.equal(rows.length, Number(reply.field('recipients')) + Number(reply.field('calls') ?? 0));
      assert.equal((await who.balance()).credits, before.credits - Number(reply.field('credits')));
      return { ...reply, id, rows, campaign: await campaignRow(t, id) };
    };
    /** Posts, expects `status`, and checks that nothing was written or charged. */
    const refused = async (root: string, status: number, fields: Fields, who = s, pattern?: RegExp) => {
      const [counts, balance] = [await sendTableCounts(t), await who.balance()];
      const reply = await post(root, fields, { who });
      assert.equal(reply.status, status, reply.text.slice(0, 400));
      assert.match(reply.text, envelope(root, status));
      if (pattern) assert.match(reply.text, pattern);
      assert.deepEqual(await sendTableCounts(t), counts);
      assert.deepEqual(await who.balance(), balance);
      return reply;
    };
    const newList = async (name: string, contacts: string) => {
      const reply = await post('newCL', { cl: `<name>${name}</name><destinations>${contacts}</destinations>` });
      assert.equal(reply.status, 0, reply.text);
      return reply.field('id')!;
    };

    before(async () => {
      t = await startSendingService(target, { clock: () => now, env: { YONA_PUBLIC_URL: `${PUBLIC}/` } });
      s = await newSender(t, 'xmlsender', 10_000);
      lists.L = await newList(
        'customers',
        '<destination><phone>0501111111</phone><df1>Dana</df1><df2>Haifa</df2></destination>' +
          '<destination><phone>0502222222</phone><df1>Avi</df1></destination><destination><phone>031234567</phone><df1>Office</df1></destination>',
      );
      lists.L2 = await newList('second', '<destination><phone>0504444444</phone></destination>');
    });
    after(() => t.close());

    for (const [status, label, fields, pattern] of smsFailures) {
      it(`sms: ${label} is ${status}, nothing stored`, async () => {
        await refused('sms', status, { ...SMS_DEFAULTS, ...fields }, s, pattern);
      });
    }
    for (const [status, label, fields, pattern] of bulkFailures) {
      it(`bulk: ${label} is ${status}, nothing stored`, async () => {
        await refused('bulk', status, fields, s, pattern);
      });
    }

    const successes: Array<[string, Fields, Check]> = [
      [
        'tag is glued in front (escaped markup and its trailing space kept)',
        { tag: '&lt;#&gt; ', message: 'Your code is 1234' },
        ({ rows }) =>
          assert.deepEqual(
            rows.map((m) => m.text),
            ['<#> Your code is 1234'],
          ),
      ],
      [
        'a Hebrew message with an entity is stored decoded, in UCS-2',
        { message: 'שלום &amp; תודה' },
        ({ text, rows }) => assert.deepEqual([rows[0].text, xmlField(text, 'encoding')], ['שלום & תודה', 'ucs2']),
      ],
      [
        'phone id attributes become external ids; one number written twice is sent once',
        { destinations: P('<phone id="e1">0501234567</phone>', '+972501234567', '<phone id="e2">0521234567</phone>') },
        ({ rows }) =>
          assert.deepEqual(
            rows.map((m) => [m.phone, m.external_id]),
            [
              ['972501234567', 'e1'],
              ['972521234567', 'e2'],
            ],
          ),
      ],
      [
        'a message of 1005 characters and a campaign_name of 50',
        { message: 'a'.repeat(1005), campaign_name: 'n'.repeat(50) },
        ({ text, campaign }) => assert.deepEqual([xmlField(text, 'parts'), campaign.name], ['7', 'n'.repeat(50)]),
      ],
      [
        'add_unsubscribe 2 appends the reply-to-remove line',
        { add_unsubscribe: '2', message: 'Sale' },
        ({ rows }) =>
          assert.deepEqual(
            rows.map((m) => m.text),
            ['Sale\nלהסרה השב הסר'],
          ),
      ],
      [
        'add_unsubscribe 3 appends a removal link per recipient',
        { add_unsubscribe: '3', message: 'Sale', destinations: P('0501234567', '0521234567') },
        ({ rows }) => {
          for (const m of rows) assert.equal(m.text, `Sale\nלהסרה: ${PUBLIC}/u/${m.unsubscribe_code}`);
          assert.match(rows[0].unsubscribe_code!, /^[A-Za-z0-9_-]{16}$/);
          assert.notEqual(rows[0].unsubscribe_code, rows[1].unsubscribe_code);
        },
      ],
      [
        'add_unsubscribe 1 appends nothing',
        { add_unsubscribe: '1', message: 'Sale' },
        ({ rows }) => assert.equal(rows[0].text, 'Sale'),
      ],
      [
        "add_dynamic 1 merges a list's fields (landline contacts left out)",
        { destinations: '<cl_id>{L}</cl_id>', add_dynamic: '1', message: 'Hi [df1] from [DYNAMIC_FIELD2]!' },
        ({ text, rows }) => {
          assert.deepEqual(rows.map((m) => [m.phone, m.text]).sort(), [
            ['972501111111', 'Hi Dana from Haifa!'],
            ['972502222222', 'Hi Avi from !'],
          ]);
          assert.match(
            text,
            /<rejected><recipient><phone>97231234567<\/phone><reason>not_mobile<\/reason><status>933<\/status><\/recipient><\/rejected>/,
          );
        },
      ],
      [
        'a list with phones, deduplicated, without merging',
        { destinations: `<cl_id>{L}</cl_id>${P('0501111111', '0503333333')}`, message: 'Hi [df1]' },
        ({ rows }) =>
          assert.deepEqual(rows.map((m) => [m.phone, m.text]).sort(), [
            ['972501111111', 'Hi [df1]'],
            ['972502222222', 'Hi [df1]'],
            ['972503333333', 'Hi [df1]'],
          ]),
      ],
      [
        'a tts block is stored with a campaign of kind tts',
        { tts: '<type>3</type><rate>-2</rate><voice>ymFemale</voice>' },
        ({ campaign }) =>
          assert.deepEqual(
            [campaign.kind, JSON.parse(campaign.options).tts],
            ['tts', { type: 3, rate: -2, repeat: 2, voice: 'ymFemale' }],
          ),
      ],
      [
        'timing in the future schedules the campaign in the account time zone',
        { timing: '02/06/26 08:30' },
        ({ text, campaign, rows }) =>
          assert.deepEqual(
            [
              xmlField(text, 'timing'),
              campaign.state,
              Number(campaign.scheduled_at),
              rows[0].state,
              Number(rows[0].next_attempt_at),
            ],
            ['02/06/26 08:30', 'scheduled', at(2, 8, 30), 'scheduled', at(2, 8, 30)],
          ),
      ],
      [
        'timing in the past sends now',
        { timing: '01/05/26 08:30' },
        ({ text, campaign }) => assert.deepEqual([xmlField(text, 'timing'), campaign.state], [undefined, 'queued']),
      ],
      [
        'an empty temp_bl element means no temp_bl',
        { temp_bl: '' },
        ({ campaign }) => assert.equal(JSON.parse(campaign.options).temp_bl, null),
      ],
    ];
    for (const [label, fields, check] of successes) {
      it(`sms: ${label}`, async () => check(await accepted(fields)));
    }

    it('sms: a link with an id attribute becomes a short link of YONA_PUBLIC_URL (the &amp; in its target decoded)', async () => {
      const sent = await accepted({
        message: 'go [w] now',
        links: '<link id="w">https://shop.example.com/a?b=1&amp;c=2</link>',
      });
      const [link] = await campaignLinks(t.service.store.db, sent.id);
      assert.deepEqual([link.link_key, link.target], ['w', 'https://shop.example.com/a?b=1&c=2']);
      assert.equal(sent.rows[0].text, `go ${PUBLIC}/l/${link.code} now`);
    });

    it('temp_bl: numbers messaged in the last n days are skipped and listed; all skipped is 715, also with the rest blocked', async () => {
      now += 60_000;
      await accepted({ destinations: P('0531110001') });
      now += 2 * 24 * 3600_000;
      const mixed = await accepted({ destinations: P('<phone id="a">0531110001</phone>', '0531110002'), temp_bl: '3' });
      assert.deepEqual(
        mixed.rows.map((m) => m.phone),
        ['972531110002'],
      );
      assert.match(mixed.text, new RegExp(`<rejected>${recipient('972531110001', 'temp_bl', 715, 'a')}</rejected>`));
      await refused(
        'sms',
        715,
        { ...SMS_DEFAULTS, destinations: P('0531110001'), temp_bl: '3' },
        s,
        /<reason>temp_bl<\/reason>/,
      );
      assert.equal((await post('addNumBL', { phones: P('0531110009') })).status, 946);
      await refused('sms', 715, { ...SMS_DEFAULTS, destinations: P('0531110001', '0531110009'), temp_bl: '3' });
      await refused('bulk', 715, { temp_bl: '3', messages: item('0531110001') });
      await accepted({ destinations: P('0531110001'), temp_bl: '1' });
    });

    it('the blocklist: numbers added with addNumBL in XML are skipped; all blocked is 8 for sms and bulk', async () => {
      const added = await post('addNumBL', { phones: P('0549990001', '0549990002') });
      assert.deepEqual([added.status, added.field('added')], [946, '2']);
      assert.match(added.text, envelope('addNumBL', 946));
      const mixed = await accepted({ destinations: P('0549990001', '0549990003') });
      assert.match(mixed.text, new RegExp(`<rejected>${recipient('972549990001', 'blocked', 8)}</rejected>`));
      await refused(
        'sms',
        8,
        { ...SMS_DEFAULTS, destinations: P('0549990001', '<phone id="b">0549990002</phone>') },
        s,
        new RegExp(
          `<rejected>${recipient('972549990001', 'blocked', 8)}${recipient('972549990002', 'blocked', 8, 'b')}</rejected>`,
        ),
      );
      await refused('bulk', 8, { messages: item('0549990001') + item('0549990002', 'other') });
    });

    it('credit: not enough is 4 for sms and bulk, nothing created; what fits is accepted', async () => {
      const poor = await newSender(t, 'xmlpoor', 5);
      await refused(
        'sms',
        4,
        { ...SMS_DEFAULTS, destinations: P('0501234567', '0521234567', '0531234567'), message: 'a'.repeat(200) },
        poor,
        /<message>[^<]*6 credits/,
      );
      await refused(
        'bulk',
        4,
        {
          messages:
            item('0501234567', 'a'.repeat(161)) +
            item('0521234567', 'b'.repeat(161)) +
            item('0531234567', 'c'.repeat(161)),
        },
        poor,
      );
      await accepted({ destinations: P('0501234567', '0521234567') }, poor);
      await refused(
        'sms',
        4,
        { ...SMS_DEFAULTS, destinations: P('0501234567', '0521234567', '0531234567', '0541234567') },
        poor,
      );
      assert.equal((await poor.balance()).credits, 3);
    });

    it('includes_international 1: 12 without international money, charged from it with enough', async () => {
      const foreign = { ...SMS_DEFAULTS, destinations: P('+447911123456', '0501234567'), includes_international: '1' };
      await refused('sms', 12, foreign, s, /<message>[^<]*0\.25/);
      await refused('bulk', 12, { includes_international: '1', messages: item('+447911123456') }, s);
      const rich = await newSender(t, 'xmlintl', 100, ['--international', '10']);
      const sent = await accepted(foreign, rich);
      assert.deepEqual(
        ['recipients', 'credits', 'international_cost'].map((f) => sent.field(f)),
        ['2', '1', '0.25'],
      );
      assert.deepEqual(
        sent.rows.map((m) => [m.phone, Number(m.cost_credits), Number(m.cost_agorot)]),
        [
          ['447911123456', 0, 25],
          ['972501234567', 1, 0],
        ],
      );
      assert.deepEqual(await rich.balance(), { credits: 99, agorot: 975 });
    });

    it('bulk: per-item texts in one campaign with the rejected recipients; 2500 items are accepted by /api/test', async () => {
      const reply = await post('bulk', {
        campaign_name: 'june',
        messages:
          item('<phone id="a">0501111111</phone>', 'Hi Dana') +
          item('0502222222', 'שלום אבי') +
          item('<phone id="c">123</phone>', 'x'),
      });
      assert.equal(reply.status, 0, reply.text);
      assert.match(reply.text, envelope('bulk', 0));
      assert.deepEqual(
        ['recipients', 'credits', 'encoding'].map((f) => reply.field(f)),
        ['2', '2', 'ucs2'],
      );
      assert.match(reply.text, new RegExp(`<rejected>${recipient('123', 'too_short', 9, 'c')}</rejected>`));
      const campaign = await campaignRow(t, Number(reply.field('campaign_id')));
      assert.deepEqual([campaign.kind, campaign.name, campaign.state], ['bulk', 'june', 'queued']);
      assert.deepEqual(
        (await messagesOf(t, campaign.id)).map((m) => [m.phone, m.external_id, m.text]),
        [
          ['972501111111', 'a', 'Hi Dana'],
          ['972502222222', null, 'שלום אבי'],
        ],
      );
      const counts = await sendTableCounts(t);
      const full = await post('bulk', { messages: items(2500) }, { dryRun: true });
      assert.deepEqual([full.status, full.field('recipients'), full.field('credits')], [0, '2500', '2500']);
      assert.deepEqual(await sendTableCounts(t), counts);
    });

    it('/api/test bulk answers recipients, parts, encoding, credits and rejected, stores nothing, and matches the real send', async () => {
      const fields = {
        campaign_name: 'dry',
        messages:
          item('<phone id="a">0501111111</phone>', 'ש'.repeat(71)) +
          item('0502222222', 'hi') +
          item('<phone id="c">123</phone>', 'x') +
          item('031234567'),
      };
      const [counts, balance] = [await sendTableCounts(t), await s.balance()];
      const dry = await post('bulk', fields, { dryRun: true });
      assert.equal(dry.status, 0, dry.text);
      assert.match(
        dry.text,
        /^<\?xml version="1.0" encoding="UTF-8"\?><bulk><status>0<\/status><message>SMS will be sent<\/message><shipment_id>\d+<\/shipment_id>/,
      );
      const figures = (r: typeof dry) => ['recipients', 'parts', 'encoding', 'credits'].map((f) => r.field(f));
      assert.deepEqual(figures(dry), ['2', '2', 'ucs2', '3']);
      assert.match(
        dry.text,
        new RegExp(
          `<rejected>${recipient('123', 'too_short', 9, 'c')}${recipient('031234567', 'not_mobile', 933)}</rejected>`,
        ),
      );
      assert.deepEqual(await sendTableCounts(t), counts);
      assert.deepEqual(await s.balance(), balance);
      assert.equal((await post('bulk', { messages: items(2501) }, { dryRun: true })).status, 2);
      const real = await post('bulk', fields);
      assert.deepEqual(figures(real), figures(dry));
      assert.equal((await s.balance()).credits, balance.credits - 3);
    });

    it("cancel by id: 0 refunding the scheduled messages, then 955; 966 once it went out; 977 unknown or another's; 2 with neither", async () => {
      const later = await accepted({
        destinations: P('0501234567', '0521234567'),
        timing: '01/01/35 10:00',
        message: 'a'.repeat(200),
      });
      const balance = (await s.balance()).credits;
      const ok = await post('cancel', { campaign_id: ` ${later.id} ` });
      assert.match(ok.text, envelope('cancel', 0));
      assert.deepEqual(
        ['cancelled', 'refunded_credits'].map((f) => ok.field(f)),
        ['1', '4'],
      );
      assert.equal((await s.balance()).credits, balance + 4);
      assert.equal((await campaignRow(t, later.id)).state, 'cancelled');
      await refused('cancel', 955, { campaign_id: String(later.id) });
      const sentNow = await accepted({});
      await refused('cancel', 966, { campaign_id: String(sentNow.id) });
      assert.equal((await campaignRow(t, sentNow.id)).state, 'queued');
      await refused('cancel', 977, { campaign_id: '987654' });
      const other = await newSender(t, 'xmlother', 100);
      const theirs = await accepted({ timing: '01/01/35 10:00' }, other);
      const foreign = await refused('cancel', 977, { campaign_id: String(theirs.id) });
      assert.doesNotMatch(foreign.text, /xmlother/);
      assert.equal((await campaignRow(t, theirs.id)).state, 'scheduled');
      await refused('cancel', 2, {}, s, /<message>[^<]*campaign_id/);
    });

    it('cancel by name: every scheduled match with the count; 966 when only sent ones are left; 955 all cancelled; 977 unknown', async () => {
      const a = await accepted({ timing: '01/01/35 10:00', campaign_name: 'promo-x' });
      const b = await accepted({ timing: '01/01/35 11:00', campaign_name: 'promo-x' });
      const c = await accepted({ campaign_name: 'promo-x' });
      const reply = await post('cancel', { campaign_name: 'promo-x' });
      assert.deepEqual([reply.status, reply.field('cancelled'), reply.field('refunded_credits')], [0, '2', '2']);
      assert.match(reply.text, /<message>2 campaigns named "promo-x" cancelled<\/message>/);
      assert.deepEqual(await Promise.all([a, b, c].map(async (x) => (await campaignRow(t, x.id)).state)), [
        'cancelled',
        'cancelled',
        'queued',
      ]);
      await refused('cancel', 966, { campaign_name: 'promo-x' });
      await accepted({ timing: '01/01/35 10:00', campaign_name: 'only-cancelled' });
      assert.equal((await post('cancel', { campaign_name: 'only-cancelled' })).field('cancelled'), '1');
      await refused('cancel', 955, { campaign_name: 'only-cancelled' });
      await refused('cancel', 977, { campaign_name: 'never-sent' });
    });
  });
}
