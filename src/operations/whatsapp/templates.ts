// get_phone_templates (019's `GET /whatsapp-api/get-phone-templates/:phone/:templateId?`): the templates of one of
// the account's business numbers, or the one named, in 019's listing shape.
import { z } from 'zod';
import { wireTemplate, type TemplateComponent } from '../../domain/whatsapp-templates.ts';
import { templatesOfNumber } from '../../store/whatsapp-templates.ts';
import { optText, text } from '../fields.ts';
import { int, str } from '../replies.ts';
import { defineOperation } from '../types.ts';
import { requireBusinessNumber } from './send.ts';

const WIRE_TEMPLATE = z.object({
  name: str(),
  templateId: str('what send-whatsapp-template names it by (its name)'),
  language: str("the provider's language code (en_US, he)"),
  headerSample: str(),
  body: str('the text with its {{1}}, {{2}}... placeholders'),
  footer: str(),
  buttons: str('1 none, 2 call to action, 3 quick reply, 4 both'),
  callToAction: str('0 none, 1 website, 2 call, 3 both'),
  callToActionWebsiteText: str(),
  callToActionWebsiteType: str('1 static URL, 2 dynamic (one variable appended); empty without a website button'),
  callToActionWebsiteURL: str(),
  callToActionCallText: str(),
  callToActionCallNumber: str(),
  quickReply1: str(),
  quickReply2: str(),
  quickReply3: str(),
  headers: str('1 when it has a header, else 0'),
  status: int('0 approved, 1 pending, 2 rejected, 3 paused or disabled, 4 other'),
});

export const getPhoneTemplates = defineOperation({
  names: ['get_phone_templates'],
  readOnly: true,
  input: z.object({ phone: text(), templateId: optText() }),
  reply: z.object({
    templates: z
      .array(WIRE_TEMPLATE)
      .describe("the business number's templates (the one named, when templateId is given)"),
    variables: z.record(z.string(), z.number().int()).describe('how many variables each template takes, by templateId'),
  }),
  async handler(ctx, input) {
    const business = await requireBusinessNumber(ctx, input.phone);
    const rows = (await templatesOfNumber(ctx.db, business.number, business.carrier)).filter(
      (t) => input.templateId === undefined || t.name === input.templateId,
    );
    const variables: Record<string, number> = {};
    for (const t of rows) variables[t.name] = Math.max(variables[t.name] ?? 0, Number(t.variables));
    return {
      status: 0,
      message: `${rows.length} templates`,
      templates: rows.map((t) => wireTemplate({ ...t, components: JSON.parse(t.components) as TemplateComponent[] })),
      variables,
    };
  },
});
