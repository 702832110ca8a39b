// Birthday campaigns: new_birthday_campaign (our extension), get_birthday_campaigns, edit_birthday_campaign.
// A campaign greets each contact of a list on their birthday (a `dd/mm` or `dd/mm/yyyy` value in one of
// df1..df6) from `hour` o'clock in the account's time zone; delivery/birthdays.ts does the sending.
//
// Requests and replies:
//   new_birthday_campaign  cl_id, name (<= 50), message (<= 1005; dynamic fields merged), source (verified),
//                          hour (0-23, default 9), dob_field (df1..df6, default df1)
//                          -> { status 0, message, id }; 988 unknown list, 515 unverified source, 989 lengths
//   get_birthday_campaigns -> { status 0, message, campaigns: [{ id, name, cl_id, message, source, hour,
//                          dob_field, active (1|0), date (dd/mm/yy hh:mm) }] }
//   edit_birthday_campaign id (or campaign_id) + any of message, hour, source, active (1|0), name, dob_field
//                          -> { status 0, message, id }; 977 unknown or another account's campaign
import { z } from 'zod';
import { formatShort } from '../domain/dates.ts';
import { ApiError, missingField } from '../domain/errors.ts';
import { DYNAMIC_FIELDS, type DynamicFieldName } from '../domain/templates.ts';
import {
  findBirthdayCampaign,
  insertBirthdayCampaign,
  listBirthdayCampaigns,
  updateBirthdayCampaign,
  type BirthdayCampaignChanges,
} from '../store/birthdays.ts';
import { findContactList } from '../store/contacts.ts';
import { requireVerifiedSender } from './send/compose.ts';
import { optInt, optText, rawText, text, textOf, readByHandler } from './fields.ts';
import { defineOperation, type OperationContext } from './types.ts';

/** Hour greetings go out when new_birthday_campaign names none. */
export const DEFAULT_BIRTHDAY_HOUR = 9;
const MAX_MESSAGE = 1005;
const MAX_NAME = 50;

function checkHour(hour: number): number {
  if (hour < 0 || hour > 23) throw new ApiError(2, `Invalid value for field hour: must be 0 to 23, got ${hour}`);
  return hour;
}

// df1..df6, any case; a bare 1..6 or DYNAMIC_FIELD1..6 names the same field.
function checkDobField(value: string): DynamicFieldName {
  const m = /^(?:df|dynamic_field)?([1-6])$/i.exec(value.trim());
  if (!m) throw new ApiError(2, `Invalid value for field dob_field: use one of ${DYNAMIC_FIELDS.join(', ')}`);
  return `df${m[1]}` as DynamicFieldName;
}

function checkLength(field: 'message' | 'name', value: string, max: number): string {
  if (value.length > max)
    throw new ApiError(989, `Field ${field} is too long: ${value.length} characters, at most ${max}`);
  return value;
}

async function checkSource(ctx: OperationContext, source: string): Promise<string> {
  await requireVerifiedSender(ctx, source);
  return source;
}

/** new_birthday_campaign (extension): creates an active campaign on a list. */
export const newBirthdayCampaign = defineOperation({
  names: ['new_birthday_campaign'],
  input: z.object({
    cl_id: text(),
    name: text(),
    message: rawText(),
    source: text(),
    hour: optInt(),
    dob_field: optText(),
  }),
  async handler(ctx, input) {
    const listId = /^\d{1,15}$/.test(input.cl_id) ? Number(input.cl_id) : 0;
    const list = await findContactList(ctx.db, ctx.account.id, listId);
    if (!list) throw new ApiError(988, `Contact list does not exist: ${input.cl_id}`);
    const id = await insertBirthdayCampaign(ctx.db, {
      accountId: ctx.account.id,
      listId: list.id,
      name: checkLength('name', input.name, MAX_NAME),
      message: checkLength('message', input.message, MAX_MESSAGE),
      source: await checkSource(ctx, input.source),
      hour: checkHour(input.hour ?? DEFAULT_BIRTHDAY_HOUR),
      dobField: checkDobField(input.dob_field ?? 'df1'),
      now: ctx.now,
    });
    return { status: 0, message: 'Birthday campaign created', id };
  },
});

/** get_birthday_campaigns: the account's campaigns. */
export const getBirthdayCampaigns = defineOperation({
  names: ['get_birthday_campaigns'],
  input: z.object({}),
  readOnly: true,
  async handler(ctx) {
    const campaigns = (await listBirthdayCampaigns(ctx.db, ctx.account.id)).map((c) => ({
      id: c.id,
      name: c.name,
      cl_id: c.list_id,
      message: c.message,
      source: c.source,
      hour: c.hour,
      dob_field: c.dob_field,
      active: c.active,
      date: formatShort(c.created_at, ctx.account.time_zone),
    }));
    return {
      status: 0,
      message: `${campaigns.length} birthday campaign${campaigns.length === 1 ? '' : 's'}`,
      campaigns,
    };
  },
});

/** edit_birthday_campaign: changes text, hour, source, activity (977 when not the account's). */
export const editBirthdayCampaign = defineOperation({
  names: ['edit_birthday_campaign'],
  input: z.object({
    id: readByHandler('The campaign to change (from new_birthday_campaign or get_birthday_campaigns).'),
    campaign_id: readByHandler('Another name for `id`.'),
    message: z.preprocess((v) => (textOf(v) === '' ? undefined : v), rawText().optional()),
    hour: optInt(),
    source: optText(),
    active: optInt(),
    name: optText(),
    dob_field: optText(),
  }),
  async handler(ctx, input) {
    const rawId = textOf(input.id ?? input.campaign_id)?.trim() ?? '';
    if (rawId === '') throw missingField('id');
    const campaign = /^\d{1,15}$/.test(rawId)
      ? await findBirthdayCampaign(ctx.db, ctx.account.id, Number(rawId))
      : undefined;
    if (!campaign) throw new ApiError(977, `Birthday campaign does not belong to customer or does not exist: ${rawId}`);
    const changes: BirthdayCampaignChanges = {};
    if (input.message !== undefined) changes.message = checkLength('message', input.message, MAX_MESSAGE);
    if (input.name !== undefined) changes.name = checkLength('name', input.name, MAX_NAME);
    if (input.hour !== undefined) changes.hour = checkHour(input.hour);
    if (input.dob_field !== undefined) changes.dob_field = checkDobField(input.dob_field);
    if (input.source !== undefined) changes.source = await checkSource(ctx, input.source);
    if (input.active !== undefined) {
      if (input.active !== 0 && input.active !== 1) throw new ApiError(2, 'Invalid value for field active: use 1 or 0');
      changes.active = input.active;
    }
    if (Object.keys(changes).length === 0) throw missingField('one of message, hour, source, active, name, dob_field');
    await updateBirthdayCampaign(ctx.db, campaign.id, changes, ctx.now);
    return { status: 0, message: 'Birthday campaign updated', id: campaign.id };
  },
});
