// The bundled WhatsApp Cloud API simulator as its own process (`yona wa-sim`), driven as a carrier drives Meta's
// Cloud API: the bearer token is checked, texts and templates are taken with Meta's reply shape, templates are
// listed, every scripted outcome gives its answers and its webhook sequence, every webhook is in Meta's envelope
// and signed with the app secret, a failing webhook receiver is retried with a growing delay, and `yona sim
// mo|messages --channel whatsapp` make a user write and list what each user got.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { eventually } from '../delivery/delivery-helpers.ts';
import { type PushReceiver, type ReceivedPush, startPushReceiver } from '../helpers/push-receiver.ts';
import { runCli } from '../helpers/serve-process.ts';
import { SIM_APP_SECRET, startWaSimProcess, type WaSimProcess } from '../helpers/wa-sim-process.ts';

const BUSINESS = '972500000000';
const MESSAGES = `/v23.0/${BUSINESS}/messages`;

let sim: WaSimProcess;
let receiver: PushReceiver;
// The sent status posts to this user fail twice before the receiver takes them.
const FLAKY_USER = '972507770000';
let flakyFailures = 0;

before(async () => {
  receiver = await startPushReceiver((push) =>
    push.body.includes(`"recipient_id":"${FLAKY_USER}"`) &&
    push.body.includes('"status":"sent"') &&
    ++flakyFailures <= 2
      ? 500
      : 200,
  );
  sim = await startWaSimProcess([
    '--webhook',
    'http://placeholder.invalid/',
    '--status-delay',
    '40',
    '--retry-base',
    '150',
  ]);
  // The receiver's address is known only now: the control channel points the webhooks at it.
  await sim.control.post('/webhook', { url: receiver.url });
});

after(async () => {
  assert.equal(await sim.stop(), 0);
  await receiver.close();
});

interface Envelope {
  object: string;
  entry: Array<{ id: string; changes: Array<{ field: string; value: Record<string, any> }> }>;
}

const envelope = (push: ReceivedPush) => JSON.parse(push.body) as Envelope;
const changeValue = (push: ReceivedPush) => envelope(push).entry[0].changes[0].value;

/** The status posts of a message id, in arrival order (a retried post counted once per arrival). */
const statusPosts = (id: string) =>
  receiver.received.filter((p) => changeValue(p).statuses?.some((s: { id: string }) => s.id === id));
const statusesOf = (id: string) => statusPosts(id).map((p) => changeValue(p).statuses[0]);

async function waitForStatuses(id: string, count: number): Promise<Array<Record<string, any>>> {
  await eventually(() => statusesOf(id).length >= count, 8000, `${count} statuses of ${id}`);
  await new Promise((r) => setTimeout(r, 200)); // nothing more comes after the last one
  return statusesOf(id);
}

const text = (to: string, body: string) =>
  sim.graph(MESSAGES, { messaging_product: 'whatsapp', to, type: 'text', text: { body } });
const template = (to: string, name: string, language: string, variables: string[] = []) =>
  sim.graph(MESSAGES, {
    messaging_product: 'whatsapp',
    to,
    type: 'template',
    template: {
      name,
      language: { code: language },
      components: variables.length
        ? [{ type: 'body', parameters: variables.map((v) => ({ type: 'text', text: v })) }]
        : [],
    },
  });
const cli = (...args: string[]) => runCli({ ...process.env, YONA_DATA_DIR: sim.dataDir }, args);

describe('yona wa-sim: the Graph API', () => {
  it('refuses a request without the bearer token or with another one, with Meta error bodies', async () => {
    const body = { messaging_product: 'whatsapp', to: '972501110000', type: 'text', text: { body: 'x' } };
    const none = await sim.graph(MESSAGES, body, null);
    assert.equal(none.status, 401);
    assert.equal(none.json.error.code, 104);
    assert.equal(none.json.error.type, 'OAuthException');
    assert.equal(typeof none.json.error.fbtrace_id, 'string');
    const wrong = await sim.graph(MESSAGES, body, 'not-the-token');
    assert.equal(wrong.status, 401);
    assert.equal(wrong.json.error.code, 190);
    assert.match(wrong.json.error.message, /Invalid OAuth access token/);
    assert.deepEqual(await sim.control.messages('972501110000'), [], 'nothing was taken');
  });

  it("takes an approved template with its variable, answers Meta's shape and reports sent, delivered and read", async () => {
    const res = await template('+972501110001', 'order_update', 'en', ['A-17']);
    assert.equal(res.status, 200, JSON.stringify(res.json));
    assert.equal(res.json.messaging_product, 'whatsapp');
    assert.deepEqual(res.json.contacts, [{ input: '+972501110001', wa_id: '972501110001' }]);
    const [{ id, message_status }] = res.json.messages;
    assert.match(id, /^wamid\./);
    assert.equal(message_status, 'accepted');
    const statuses = await waitForStatuses(id, 3);
    assert.deepEqual(
      statuses.map((s) => s.status),
      ['sent', 'delivered', 'read'],
    );
    const [sent] = statuses;
    assert.equal(sent.recipient_id, '972501110001');
    assert.match(sent.recipient_user_id, /^IL\.\d+$/);
    assert.match(sent.timestamp, /^\d{10}$/);
    assert.deepEqual(sent.pricing, { billable: true, pricing_model: 'PMP', category: 'utility', type: 'regular' });
    assert.equal(sent.conversation.origin.type, 'utility');
    const push = statusPosts(id)[0];
    const env = envelope(push);
    assert.equal(env.object, 'whatsapp_business_account');
    assert.equal(env.entry[0].changes[0].field, 'messages');
    assert.deepEqual(changeValue(push).metadata, { display_phone_number: BUSINESS, phone_number_id: BUSINESS });
    assert.equal(changeValue(push).messaging_product, 'whatsapp');
    const [got] = await sim.control.messages('972501110001');
    assert.equal(got.text, 'Your order A-17 is on its way.');
    assert.deepEqual(got.template, { name: 'order_update', language: 'en', variables: ['A-17'] });
  });

  it('refuses a template that does not exist, is not approved, or gets the wrong variables', async () => {
    const unknown = await template('972501110002', 'no_such_template', 'en');
    assert.equal(unknown.status, 404);
    assert.equal(unknown.json.error.code, 132001);
    assert.equal(unknown.json.error.error_data.messaging_product, 'whatsapp');
    const pending = await template('972501110002', 'spring_sale', 'en', ['20', 'Sunday']);
    assert.equal(pending.status, 404);
    assert.equal(pending.json.error.code, 132001);
    assert.match(pending.json.error.error_data.details, /PENDING/);
    const wrongLanguage = await template('972501110002', 'order_update', 'he', ['A-1']);
    assert.equal(wrongLanguage.json.error.code, 132001);
    const missing = await template('972501110002', 'order_update', 'en');
    assert.equal(missing.status, 400);
    assert.equal(missing.json.error.code, 132000);
    const lineBreak = await template('972501110002', 'order_update', 'en', ['A-1\nA-2']);
    assert.equal(lineBreak.status, 400);
    assert.equal(lineBreak.json.error.code, 132018);
    const noProduct = await sim.graph(MESSAGES, { to: '972501110002', type: 'text', text: { body: 'x' } });
    assert.equal(noProduct.status, 400);
    assert.equal(noProduct.json.error.code, 100);
    assert.deepEqual(await sim.control.messages('972501110002'), []);
  });

  it("lists the account's templates in Meta's shape: two approved (one with {{1}}) and one pending", async () => {
    const res = await sim.graph('/v23.0/1234567890/message_templates', undefined);
    assert.equal(res.status, 200);
    const byName = new Map(res.json.data.map((t: { name: string }) => [t.name, t]));
    const order = byName.get('order_update') as Record<string, any>;
    assert.equal(order.status, 'APPROVED');
    assert.equal(order.category, 'UTILITY');
    assert.equal(order.language, 'en');
    assert.match(order.id, /^\d+$/);
    assert.deepEqual(order.components, [
      { type: 'BODY', text: 'Your order {{1}} is on its way.', example: { body_text: [['example 1']] } },
    ]);
    assert.equal((byName.get('hello_world') as Record<string, any>).status, 'APPROVED');
    assert.equal((byName.get('spring_sale') as Record<string, any>).status, 'PENDING');
    const approved = await sim.graph('/v23.0/1234567890/message_templates?status=APPROVED&limit=1', undefined);
    assert.equal(approved.json.data.length, 1);
    assert.ok(approved.json.paging.cursors.after);
    const next = await sim.graph(
      `/v23.0/1234567890/message_templates?status=APPROVED&limit=1&after=${approved.json.paging.cursors.after}`,
      undefined,
    );
    assert.equal(next.json.data.length, 1);
    assert.notEqual(next.json.data[0].name, approved.json.data[0].name);
    const noToken = await sim.graph('/v23.0/1234567890/message_templates', undefined, null);
    assert.equal(noToken.status, 401);
  });
});

describe('yona wa-sim: scripted outcomes by the last four digits', () => {
  it('1026 has no WhatsApp: taken, then failed 131026 with no sent before it', async () => {
    const res = await template('972501231026', 'hello_world', 'en_US');
    assert.equal(res.status, 200);
    const statuses = await waitForStatuses(res.json.messages[0].id, 1);
    assert.equal(statuses.length, 1);
    assert.equal(statuses[0].status, 'failed');
    assert.equal(statuses[0].errors[0].code, 131026);
    assert.equal(statuses[0].errors[0].title, 'Message undeliverable');
    assert.ok(statuses[0].errors[0].error_data.details);
    assert.equal(statuses[0].pricing, undefined);
  });

  it('1048 is spam-limited once (400, 131048), then taken and read', async () => {
    const first = await template('972501231048', 'hello_world', 'en_US');
    assert.equal(first.status, 400);
    assert.equal(first.json.error.code, 131048);
    assert.equal(first.json.error.message, '(#131048) Spam rate limit hit');
    const second = await template('972501231048', 'hello_world', 'en_US');
    assert.equal(second.status, 200);
    const statuses = await waitForStatuses(second.json.messages[0].id, 3);
    assert.deepEqual(
      statuses.map((s) => s.status),
      ['sent', 'delivered', 'read'],
    );
    const [got] = await sim.control.messages('972501231048');
    assert.equal(got.refusedBefore, 1);
    assert.equal(got.outcome, 'spam-limited-once');
  });

  it('0429 is throttled twice (400, 130429), then taken', async () => {
    for (let i = 0; i < 2; i++) {
      const refused = await template('972501230429', 'order_update', 'en', ['T-1']);
      assert.equal(refused.status, 400);
      assert.equal(refused.json.error.code, 130429);
      assert.equal(refused.json.error.error_data.details, 'Cloud API message throughput has been reached.');
    }
    const taken = await template('972501230429', 'order_update', 'en', ['T-1']);
    assert.equal(taken.status, 200);
    assert.equal((await waitForStatuses(taken.json.messages[0].id, 3)).length, 3);
    assert.equal((await sim.control.messages('972501230429')).length, 1, 'only the taken send reached the user');
  });

  it('1001 fails after delivered (out of order): sent, delivered, then failed', async () => {
    const res = await template('972501231001', 'hello_world', 'en_US');
    const statuses = await waitForStatuses(res.json.messages[0].id, 3);
    assert.deepEqual(
      statuses.map((s) => s.status),
      ['sent', 'delivered', 'failed'],
    );
    assert.equal(statuses[2].errors[0].code, 131000);
  });

  it('2000 reports read without delivered', async () => {
    const res = await template('972501232000', 'hello_world', 'en_US');
    const statuses = await waitForStatuses(res.json.messages[0].id, 2);
    assert.deepEqual(
      statuses.map((s) => s.status),
      ['sent', 'read'],
    );
  });
});

describe('yona wa-sim: webhooks', () => {
  it('signs every webhook with X-Hub-Signature-256 over the raw body under the app secret', async () => {
    await eventually(() => receiver.received.length >= 5, 8000, 'some webhooks');
    for (const push of receiver.received) {
      const expected = `sha256=${createHmac('sha256', SIM_APP_SECRET).update(push.body).digest('hex')}`;
      assert.equal(push.headers['x-hub-signature-256'], expected);
      assert.notEqual(
        push.headers['x-hub-signature-256'],
        `sha256=${createHmac('sha256', 'another-secret').update(push.body).digest('hex')}`,
      );
      assert.equal(push.headers['content-type'], 'application/json');
    }
  });

  it('posts a webhook the receiver refused again, with a growing delay, until it is taken', async () => {
    const res = await template(FLAKY_USER, 'hello_world', 'en_US');
    const id = res.json.messages[0].id as string;
    await waitForStatuses(id, 5); // sent three times (two refused), then delivered and read
    const sentPosts = statusPosts(id).filter((p) => changeValue(p).statuses[0].status === 'sent');
    assert.equal(sentPosts.length, 3);
    assert.equal(new Set(sentPosts.map((p) => p.body)).size, 1, 'the same body each time');
    const [a, b, c] = sentPosts.map((p) => p.at);
    assert.ok(b - a >= 140, `first retry after ${b - a} ms`);
    assert.ok(c - b >= 290, `second retry after ${c - b} ms (doubled)`);
    const log = await sim.control.webhooks(id);
    const sent = log.find((d) => d.status === 'sent')!;
    assert.equal(sent.attempts, 3);
    assert.equal(sent.delivered, true);
    assert.equal(sent.lastAnswer, 200);
    assert.ok(log.filter((d) => d.status !== 'sent').every((d) => d.attempts === 1 && d.delivered));
  });
});

describe('yona sim mo|messages --channel whatsapp', () => {
  it('makes a user write to the business (webhook with contacts and messages), opening the window for a text', async () => {
    const user = '972501234567';
    const outside = await text(user, 'Before you wrote');
    assert.equal(outside.status, 200);
    const refused = await waitForStatuses(outside.json.messages[0].id, 1);
    assert.equal(refused[0].status, 'failed');
    assert.equal(refused[0].errors[0].code, 131047, 'a text outside the 24-hour window fails');

    const run = await cli(
      'sim',
      'mo',
      '--channel',
      'whatsapp',
      '--from',
      '0501234567',
      '--to',
      BUSINESS,
      '--text',
      'Hello business',
      '--name',
      'Dana',
    );
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /^delivered to Yona: wamid\.\S+ from 972501234567 \(user id IL\.\d+\)/);
    const inbound = receiver.received.map(changeValue).find((v) => v.messages?.[0]?.text?.body === 'Hello business');
    assert.ok(inbound, 'the business got the message');
    assert.deepEqual(inbound.metadata, { display_phone_number: BUSINESS, phone_number_id: BUSINESS });
    assert.equal(inbound.contacts[0].profile.name, 'Dana');
    assert.equal(inbound.contacts[0].wa_id, user);
    assert.match(inbound.contacts[0].user_id, /^IL\.\d+$/);
    const [message] = inbound.messages;
    assert.equal(message.from, user);
    assert.equal(message.from_user_id, inbound.contacts[0].user_id);
    assert.equal(message.type, 'text');
    assert.match(message.id, /^wamid\./);
    assert.match(message.timestamp, /^\d{10}$/);

    const reply = await text(user, 'Thanks for writing');
    const statuses = await waitForStatuses(reply.json.messages[0].id, 3);
    assert.deepEqual(
      statuses.map((s) => s.status),
      ['sent', 'delivered', 'read'],
    );
    assert.deepEqual(statuses[0].pricing, {
      billable: false,
      pricing_model: 'PMP',
      category: 'service',
      type: 'free_customer_service',
    });

    const listed = await cli('sim', 'messages', '--channel', 'whatsapp', '--to', '0501234567');
    assert.equal(listed.status, 0, listed.stderr);
    assert.match(listed.stdout, /to 972501234567 {2}from 972500000000 {2}text {2}failed 131047\n {2}Before you wrote/);
    assert.match(
      listed.stdout,
      /to 972501234567 {2}from 972500000000 {2}text {2}sent, delivered, read\n {2}Thanks for writing/,
    );
    const json = await cli('sim', 'messages', '--channel', 'whatsapp', '--to', user, '--json');
    const messages = JSON.parse(json.stdout) as Array<Record<string, any>>;
    assert.deepEqual(
      messages.map((m) => [m.type, m.text, m.outcome]),
      [
        ['text', 'Before you wrote', 'outside-window'],
        ['text', 'Thanks for writing', 'read'],
      ],
    );
  });

  it('lists templates with their name and variables', async () => {
    await template('972501115555', 'order_update', 'en', ['Z-9']);
    const listed = await cli('sim', 'messages', '--channel', 'whatsapp', '--to', '0501115555');
    assert.equal(listed.status, 0, listed.stderr);
    assert.match(listed.stdout, /to 972501115555 {2}from 972500000000 {2}template order_update \(en\) \{\{1\}\}="Z-9"/);
    assert.match(listed.stdout, /\n {2}Your order Z-9 is on its way\./);
    const all = JSON.parse((await cli('sim', 'messages', '--channel', 'whatsapp', '--json')).stdout) as unknown[];
    assert.ok(all.length >= 8);
  });

  it('a user known only by its business-scoped user id: no phone number in the webhook, reached by recipient', async () => {
    const run = await cli(
      'sim',
      'mo',
      '--channel',
      'whatsapp',
      '--from',
      '972508880000',
      '--to',
      BUSINESS,
      '--text',
      'Hidden number',
      '--bsuid-only',
      '--json',
    );
    assert.equal(run.status, 0, run.stderr);
    const answer = JSON.parse(run.stdout) as { userId: string; waId?: string; delivered: boolean };
    assert.equal(answer.delivered, true);
    assert.equal(answer.waId, undefined);
    const inbound = receiver.received.map(changeValue).find((v) => v.messages?.[0]?.text?.body === 'Hidden number');
    assert.ok(inbound);
    assert.equal(inbound.contacts[0].user_id, answer.userId);
    assert.equal(inbound.contacts[0].wa_id, undefined);
    assert.match(inbound.contacts[0].profile.username, /^@/);
    assert.equal(inbound.messages[0].from, undefined);
    assert.equal(inbound.messages[0].from_user_id, answer.userId);

    const reply = await sim.graph(MESSAGES, {
      messaging_product: 'whatsapp',
      recipient: answer.userId,
      type: 'text',
      text: { body: 'Reply by user id' },
    });
    assert.equal(reply.status, 200, JSON.stringify(reply.json));
    assert.deepEqual(reply.json.contacts, [{ input: answer.userId, user_id: answer.userId }]);
    const statuses = await waitForStatuses(reply.json.messages[0].id, 3);
    assert.ok(statuses.every((s) => s.recipient_user_id === answer.userId && s.recipient_id === answer.userId));
    const unknown = await sim.graph(MESSAGES, {
      messaging_product: 'whatsapp',
      recipient: 'IL.1',
      type: 'text',
      text: { body: 'x' },
    });
    assert.equal(unknown.status, 400);
    assert.equal(unknown.json.error.code, 100);
  });

  it('says how to call it when an argument is missing', async () => {
    const run = await cli('sim', 'mo', '--channel', 'whatsapp', '--from', '0501234567');
    assert.equal(run.status, 2);
    assert.match(run.stderr, /usage: yona sim mo --channel whatsapp --from PHONE --to BUSINESS_NUMBER --text TEXT/);
    const channel = await cli('sim', 'messages', '--channel', 'fax');
    assert.equal(channel.status, 2);
    assert.match(channel.stderr, /--channel must be sms or whatsapp/);
  });

  it('yona wa-sim names an option at fault, exit 2', async () => {
    const webhook = await cli('wa-sim', '--port', '0', '--webhook', 'not a url');
    assert.equal(webhook.status, 2);
    assert.match(webhook.stderr, /--webhook must be an http\(s\) URL, got "not a url"/);
    const business = await cli('wa-sim', '--port', '0', '--business', '972500000001');
    assert.equal(business.status, 2);
    assert.match(business.stderr, /--business must be NUMBER=PHONE_NUMBER_ID\[:WABA_ID\]/);
  });
});
