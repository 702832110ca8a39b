// Accept-Language for replies: Hebrew catalogue messages when the caller prefers Hebrew; English otherwise.
import { hebrewMessage } from '../domain/status.ts';
import type { Reply } from './codec.ts';

const HEBREW = /^(he|iw)(-|$)/; // iw: Hebrew's withdrawn code, still sent by old Java clients
const ENGLISH = /^(en(-|$)|\*$)/; // `*` leaves the default, English

let lastHeader: string | undefined;
let lastAnswer = false;

/**
 * Whether an Accept-Language header prefers Hebrew to English: by q-value, then by order; a range at q=0 is
 * refused. Languages other than these two do not count. The last header's answer is kept (clients repeat it).
 */
export function prefersHebrew(header: string): boolean {
  if (header === lastHeader) return lastAnswer;
  let he = 0;
  let en = 0;
  let heFirst = false;
  for (const part of header.split(',')) {
    const [range, ...params] = part.trim().toLowerCase().split(';');
    const qParam = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const q = qParam === undefined ? 1 : Number(qParam.slice(2));
    if (!(q > 0 && q <= 1)) continue;
    if (HEBREW.test(range)) {
      if (en === 0 && he === 0) heFirst = true;
      he = Math.max(he, q);
    } else if (ENGLISH.test(range)) {
      en = Math.max(en, q);
    }
  }
  lastHeader = header;
  lastAnswer = he > en || (he > 0 && he === en && heFirst);
  return lastAnswer;
}

/** The reply of `operation` with its catalogue message in Hebrew (a detail after the catalogue text stays as it is). */
export function inHebrew(reply: Reply, operation?: string): Reply {
  return typeof reply.message === 'string'
    ? { ...reply, message: hebrewMessage(reply.status, reply.message, operation) }
    : reply;
}
