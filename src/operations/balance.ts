// balance: remaining domestic credit and international money (flat reply, both spellings of the latter).
import { z } from 'zod';
import { formatShekels } from '../domain/money.ts';
import { optText } from './fields.ts';
import { SHEKELS, str } from './replies.ts';
import { defineOperation } from './types.ts';

export const balance = defineOperation({
  names: ['balance'],
  input: z.object({ type: optText() }),
  reply: z.object({
    balance: str('domestic credits'),
    international_balance: str(SHEKELS),
    interantional_balance: str('the same, spelled as 019 spells it'),
  }),
  readOnly: true,
  async handler(ctx, input) {
    const international = formatShekels(ctx.account.intl_agorot);
    if (input.type === 'mail') {
      // Yona sends no e-mail: the mail balance exists for compatibility and is always zero.
      return {
        status: 0,
        message: 'Mail balance is 0',
        balance: '0',
        international_balance: international,
        interantional_balance: international,
      };
    }
    return {
      status: 0,
      message: `Your balance is ${ctx.account.credits} credits`,
      balance: String(ctx.account.credits),
      international_balance: international,
      interantional_balance: international,
    };
  },
});
