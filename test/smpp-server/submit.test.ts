// The SMPP server end to end, on both stores, with the `smpp` package as the customer's ESME: binds, submit_sm in
// GSM-7, Latin-1 and UCS-2, long messages by UDH, SAR options and message_payload (charged as the API charges
// them), submit_multi as one campaign, the refusals' command_status, receipts and inbound texts as deliver_sm,
// query_sm and cancel_sm of a scheduled message, enquire_link, unknown PDUs and unbind.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { storeTargets } from '../helpers/stores.ts';
import { eventually } from '../delivery/delivery-helpers.ts';
import { Esme } from './esme.ts';
import { startSmppHarness, type SmppHarness } from './harness.ts';

const HEBREW = 'שלום! הודעה בעברית דרך שרת ה-SMPP';
const ucs2 = (text: string) => Buffer.from(text, 'utf16le').swap16();

const targets = await storeTargets();
for (const target of targets) {
  describe(`SMPP server: submits and deliveries (${target.name})`, () => {
    let h: SmppHarness;
    let esme: Esme;
    const credits = async (username: string) =>
      Number(
        (
          await h.t.service.store.db
            .selectFrom('accounts')
            .select('credits')
            .where('username', '=', username)
            .executeTakeFirstOrThrow()
        ).credits,
      );

    before(async () => {
      h = await startSmppHarness(target);
      await h.customer('reseller1', 'pw123');
      esme = await Esme.connect(h.port);
      assert.equal(await esme.bind('transceiver', 'reseller1', 'pw123'), 0);
    });
    after(async () => {
      esme?.close();
      await h?.close();
    });

    it('a GSM-7 submit_sm reaches the carrier, is charged, and its receipt comes back as deliver_sm', async () => {
      const before = await credits('reseller1');
      const resp = await esme.submit({
        destination_addr: '972521234567',
        dest_addr_ton: 1,
        short_message: Buffer.from('Hello from SMPP'),
      });
      assert.equal(resp.command_status, 0);
      assert.match(String(resp.message_id), /^\d+$/);
      const [sent] = await eventually(
        async () => {
          const m = h.simulator.messages({ to: '+972521234567' });
          return m.length > 0 ? m : undefined;
        },
        10_000,
        'the carrier got it',
      );
      assert.equal(sent.text, 'Hello from SMPP');
      assert.equal(await credits('reseller1'), before - 1);
      await esme.until(
        () => esme.receipts().some((r) => r.pdu.receipted_message_id === resp.message_id),
        10_000,
        'the receipt',
      );
      const receipt = esme.receipts().find((r) => r.pdu.receipted_message_id === resp.message_id)!;
      assert.equal(receipt.pdu.message_state, 2);
      assert.equal(receipt.pdu.source_addr, '972521234567');
      assert.equal(receipt.pdu.destination_addr, 'Yona');
      assert.match(
        receipt.text,
        new RegExp(
          `^id:${resp.message_id} sub:001 dlvrd:001 submit date:\\d{10} done date:\\d{10} stat:DELIVRD err:000 text:Hello from SMPP$`,
        ),
      );
    });

    it('UCS-2 Hebrew, Latin-1, and a long text in three UDH parts, by SAR options or in message_payload are sent whole and charged per part', async () => {
      const hebrew = await esme.submit({ destination_addr: '0521110001', data_coding: 8, short_message: ucs2(HEBREW) });
      assert.equal(hebrew.command_status, 0);
      const latin = await esme.submit({
        destination_addr: '0521110002',
        data_coding: 3,
        short_message: Buffer.from('Café crème', 'latin1'),
      });
      assert.equal(latin.command_status, 0);
      const long = 'A'.repeat(153) + 'B'.repeat(153) + 'C'.repeat(40);
      const udhParts = [long.slice(0, 153), long.slice(153, 306), long.slice(306)].map((p, i) =>
        Buffer.concat([Buffer.from([0x05, 0x00, 0x03, 0x2a, 3, i + 1]), Buffer.from(p)]),
      );
      const before = await credits('reseller1');
      const udh = await Promise.all(
        udhParts.map((part) => esme.submit({ destination_addr: '0521110003', esm_class: 0x40, short_message: part })),
      );
      assert.deepEqual(
        udh.map((r) => r.command_status),
        [0, 0, 0],
      );
      assert.equal(new Set(udh.map((r) => r.message_id)).size, 1, 'the parts of one message share its id');
      assert.equal(await credits('reseller1'), before - 3, 'three parts, as the API charges them');
      const sar = await Promise.all(
        [long.slice(0, 153), long.slice(153, 306), long.slice(306)].map((p, i) =>
          esme.submit({
            destination_addr: '0521110004',
            short_message: Buffer.from(p),
            sar_msg_ref_num: 7,
            sar_total_segments: 3,
            sar_segment_seqnum: i + 1,
          }),
        ),
      );
      assert.deepEqual(
        sar.map((r) => r.command_status),
        [0, 0, 0],
      );
      const payload = await esme.submit({ destination_addr: '0521110005', message_payload: Buffer.from(long) });
      assert.equal(payload.command_status, 0);
      const text = (to: string) =>
        eventually(
          async () =>
            h.simulator
              .messages({ to })
              .map((m) => m.text)
              .join('') || undefined,
          10_000,
          to,
        );
      assert.equal(await text('+972521110001'), HEBREW);
      assert.equal(await text('+972521110002'), 'Café crème');
      assert.equal(await text('+972521110003'), long);
      assert.equal(await text('+972521110004'), long);
      assert.equal(await text('+972521110005'), long);
    });

    it('submit_multi sends to several numbers as one campaign and lists the numbers it refused', async () => {
      const resp = await esme.request('submit_multi', {
        source_addr: 'Yona',
        dest_address: [
          { dest_addr_ton: 1, dest_addr_npi: 1, destination_addr: '972521110011' },
          { dest_addr_ton: 0, dest_addr_npi: 1, destination_addr: '0521110012' },
          { dest_addr_ton: 0, dest_addr_npi: 1, destination_addr: '12' },
        ],
        short_message: Buffer.from('to many'),
      });
      assert.equal(resp.command_status, 0);
      const campaigns = await h.t.service.store.db
        .selectFrom('messages')
        .select(['campaign_id', 'phone'])
        .where('campaign_id', '=', Number(resp.message_id))
        .execute();
      assert.deepEqual(campaigns.map((m) => m.phone).sort(), ['972521110011', '972521110012']);
      assert.deepEqual(
        (resp.unsuccess_sme as Array<{ destination_addr: string }>).map((u) => u.destination_addr),
        ['12'],
      );
    });

    it('refusals map to their command_status: unverified sender, bad number, empty text, no credit, blocked number', async () => {
      assert.equal(
        (
          await esme.submit({
            source_addr: 'Stranger',
            destination_addr: '0521110020',
            short_message: Buffer.from('x'),
          })
        ).command_status,
        0x0a,
      );
      assert.equal(
        (await esme.submit({ destination_addr: '12', short_message: Buffer.from('x') })).command_status,
        0x0b,
      );
      assert.equal(
        (await esme.submit({ destination_addr: '0521110021', short_message: Buffer.alloc(0) })).command_status,
        0x01,
      );
      assert.equal(
        (await esme.submit({ destination_addr: '0521110022', data_coding: 4, short_message: Buffer.from('x') }))
          .command_status,
        0x104,
      );
      await h.customer('poor1', 'pw', { credits: 0 });
      const poor = await Esme.connect(h.port);
      assert.equal(await poor.bind('transmitter', 'poor1', 'pw'), 0);
      assert.equal(
        (await poor.submit({ destination_addr: '0521110023', short_message: Buffer.from('x') })).command_status,
        0x401,
      );
      poor.close();
      const lines = await h.t.admin('create-token', 'reseller1');
      const token = lines[lines.length - 1];
      const blocked = await h.t.api(
        'addNumBL',
        { user: { username: 'reseller1' }, phones: { phone: ['0521110024'] } },
        { token },
      );
      assert.equal(blocked.status, 946);
      assert.equal(
        (await esme.submit({ destination_addr: '0521110024', short_message: Buffer.from('x') })).command_status,
        0x403,
      );
    });

    it('query_sm and cancel_sm of a scheduled message', async () => {
      const at = new Date(Date.now() + 3 * 3600_000);
      const resp = await esme.submit({
        destination_addr: '0521110030',
        short_message: Buffer.from('later'),
        schedule_delivery_time: at,
      });
      assert.equal(resp.command_status, 0);
      const query = await esme.request('query_sm', { message_id: resp.message_id, source_addr: 'Yona' });
      assert.equal(query.command_status, 0);
      assert.equal(query.message_state, 1, 'en route while scheduled');
      const before = await credits('reseller1');
      assert.equal(
        (
          await esme.request('cancel_sm', {
            message_id: resp.message_id,
            source_addr: 'Yona',
            destination_addr: '0521110030',
          })
        ).command_status,
        0,
      );
      assert.equal(await credits('reseller1'), before + 1, 'refunded');
      assert.equal((await esme.request('query_sm', { message_id: resp.message_id })).message_state, 4);
      assert.equal((await esme.request('cancel_sm', { message_id: resp.message_id })).command_status, 0x11);
      assert.equal((await esme.request('query_sm', { message_id: '999999' })).command_status, 0x67);
    });

    it('an inbound text to the account goes out as deliver_sm', async () => {
      await h.t.admin('add-number', 'reseller1', '0559990000');
      const sent = await h.simulator.sendInbound({
        from: '972521110040',
        to: '972559990000',
        text: 'reply from a phone',
      });
      assert.equal(sent.delivered, true);
      await esme.until(() => esme.received.some((r) => r.text === 'reply from a phone'), 10_000, 'the MO');
      const mo = esme.received.find((r) => r.text === 'reply from a phone')!;
      assert.equal(mo.pdu.source_addr, '972521110040');
      assert.equal((mo.pdu.esm_class as number) & 0x04, 0);
    });

    it('enquire_link, an unknown command (generic_nack), a receiver that submits, a second bind on one connection, unbind', async () => {
      assert.equal((await esme.request('enquire_link')).command_status, 0);
      const nack = await esme.request('data_sm', {
        source_addr: 'Yona',
        destination_addr: '0521110050',
      });
      assert.equal(nack.command_status, 0x03);
      assert.equal(await esme.bind('transceiver', 'reseller1', 'pw123'), 0x05);
      const receiver = await Esme.connect(h.port);
      assert.equal(await receiver.bind('receiver', 'reseller1', 'pw123'), 0);
      assert.equal(
        (await receiver.submit({ destination_addr: '0521110051', short_message: Buffer.from('x') })).command_status,
        0x04,
      );
      await receiver.unbind();
      await receiver.until(() => receiver.closed, 5000, 'closed after unbind');
    });
  });
}
