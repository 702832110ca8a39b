// The delivery-status catalogue against the spec: every status of compatibility.md's "Delivery statuses" table
// (ranges expanded) is reported, in a dlr push and a polled report alike (both built by dlrFields), with the
// table's Hebrew text and an English text saying its meaning; every status Yona names is a row of that table or
// one of its own, listed below with the range it sits in.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { dlrFields } from '../../src/domain/push-fields.ts';
import { DELIVERY, DELIVERY_STATUS, deliveryStatusText } from '../../src/domain/status.ts';

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

// compatibility.md, "Delivery statuses (`status` inside a delivery report)": codes, he_message, meaning.
const SPEC_ROWS: Array<{ codes: number[]; he: string; meaning: string }> = [
  { codes: [-1], he: 'נשלח - ללא אישור מסירה', meaning: 'sent, no delivery confirmation' },
  { codes: [0, 102], he: 'הגיע ליעד', meaning: 'delivered' },
  { codes: [1, 3, 5, 6], he: 'נכשל', meaning: 'failed' },
  { codes: [2], he: 'Timeout', meaning: 'no confirmation within the carrier window' },
  { codes: [4], he: 'נכשל סלולר', meaning: 'failed at the mobile network' },
  { codes: [7], he: 'אין יתרה', meaning: 'no balance' },
  { codes: [14], he: 'נכשל סלולר - עבר תהליך של store&forward', meaning: 'failed after store-and-forward' },
  { codes: [15], he: 'מספר כשר', meaning: 'filtered (kosher) handset, refuses texts' },
  { codes: [16], he: 'אין הרשאת שעת שליחה', meaning: 'sending hour not permitted' },
  { codes: [17], he: 'חסום להודעות פירסומיות', meaning: 'blocked for advertising messages' },
  { codes: [18], he: 'הודעה לא חוקית', meaning: 'illegal message' },
  { codes: [101, ...range(105, 107), ...range(109, 132)], he: 'לא הגיע ליעד', meaning: 'not delivered' },
  { codes: [103], he: 'פג תוקף', meaning: 'expired' },
  { codes: [104], he: 'נמחק', meaning: 'deleted' },
  { codes: [108], he: 'נדחה', meaning: 'rejected' },
  { codes: [201], he: 'נחסם לפי בקשה', meaning: 'blocked on request (blocklist)' },
  { codes: [747], he: 'מנוי נמצא מחוץ לכיסוי רשת מקומית', meaning: 'out of local network coverage' },
  { codes: [998], he: 'אין הרשאה', meaning: 'no permission' },
  { codes: [999], he: 'שגיאה לא ידועה', meaning: 'unknown error' },
];

// Yona's own statuses: call outcomes inside the "not delivered" range (a call is not delivered either way, and
// says why), and temp_bl's 715 (the request status of a send skipped by temp_bl) for a message skipped at release.
const YONA_OWN: Record<number, { he: RegExp; en: RegExp }> = {
  110: { he: /^לא נענה - תפוס$/, en: /not answered: busy/i },
  111: { he: /^לא נענה - אין מענה$/, en: /not answered: no answer/i },
  112: { he: /ספק השיחות/, en: /refused by the trunk/i },
  113: { he: /נותק לפני סוף ההודעה/, en: /hung up before the message ended/i },
  114: { he: /אין קודק משותף/, en: /without a usable codec/i },
  715: { he: /temp_bl/, en: /temp_bl/ },
  301: { he: /^וואטסאפ - נשלח$/, en: /^WhatsApp: sent/ },
  302: { he: /^וואטסאפ - הגיע ליעד$/, en: /^WhatsApp: delivered$/ },
  303: { he: /^וואטסאפ - נקרא$/, en: /^WhatsApp: read$/ },
  304: { he: /^וואטסאפ - נכשל$/, en: /^WhatsApp: failed$/ },
  305: { he: /אין וואטסאפ/, en: /has no WhatsApp/ },
  306: { he: /חלון 24 השעות/, en: /24-hour window/ },
  307: { he: /התבנית נדחתה/, en: /template refused/ },
};

function pushed(status: number): { he_message: string; en_message: string; status: string } {
  const fields = dlrFields({
    externalId: 'x1',
    status,
    date: 0,
    phone: '972521234567',
    operator: '',
    shipmentId: 1,
    timeZone: 'UTC',
  });
  return { he_message: fields.he_message, en_message: fields.en_message, status: fields.status };
}

describe('delivery status catalogue', () => {
  for (const row of SPEC_ROWS) {
    for (const code of row.codes) {
      if (code in YONA_OWN) continue;
      it(`reports ${code} as compatibility.md says: ${row.he} (${row.meaning})`, () => {
        const fields = pushed(code);
        assert.equal(fields.status, String(code));
        assert.equal(fields.he_message, row.he);
        assert.ok(
          fields.en_message.toLowerCase().includes(row.meaning),
          `English text of ${code}, "${fields.en_message}", says "${row.meaning}"`,
        );
      });
    }
  }

  it("reports Yona's own statuses with their own texts, inside the catalogue's ranges or as temp_bl's code", () => {
    for (const [code, texts] of Object.entries(YONA_OWN)) {
      const fields = pushed(Number(code));
      assert.match(fields.he_message, texts.he, `Hebrew text of ${code}`);
      assert.match(fields.en_message, texts.en, `English text of ${code}`);
    }
  });

  it('names every status of the table, and only those and its own, each with its text', () => {
    const specCodes = new Set(SPEC_ROWS.flatMap((row) => row.codes));
    const named = Object.values(DELIVERY) as number[];
    assert.equal(new Set(named).size, named.length, 'no status named twice');
    for (const code of named)
      assert.ok(specCodes.has(code) || code in YONA_OWN, `${code} is a status of compatibility.md or Yona's own`);
    // Every code of the table is named, but for the range 105-132, which shares 101's text.
    for (const code of specCodes)
      if (code < 105 || code > 132) assert.ok(named.includes(code), `${code} of compatibility.md is named`);
    assert.deepEqual(
      Object.keys(DELIVERY_STATUS)
        .map(Number)
        .sort((a, b) => a - b),
      [...named].sort((a, b) => a - b),
      'a text for every named status, and no text without a name',
    );
  });

  it('says what messaging-api.md says of 15 and 102, and reads an unknown code as 999', () => {
    assert.match(pushed(DELIVERY.FILTERED_HANDSET).en_message, /refuses texts/);
    assert.equal(pushed(DELIVERY.DELIVERED).en_message, 'Delivered');
    assert.deepEqual(deliveryStatusText(4242), deliveryStatusText(DELIVERY.UNKNOWN));
    assert.deepEqual(deliveryStatusText(133), deliveryStatusText(DELIVERY.UNKNOWN), 'past the range');
  });
});
