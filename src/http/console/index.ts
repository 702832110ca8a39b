// The web console at /console (HTTPS only): server-rendered pages, one module per section.
import type { FastifyInstance } from 'fastify';
import type { Logger } from '../../logger.ts';
import type { AppContext } from '../../operations/execute.ts';
import { formatShekels } from '../../domain/money.ts';
import { registerAssets } from './assets.ts';
import { esc } from './html.ts';
import { registerLogin } from './login.ts';
import { ConsoleRouter } from './router.ts';
import { registerTokens } from './tokens.ts';
import { registerIps } from './ips.ts';
import { registerPush } from './push.ts';
import { registerCampaigns } from './campaigns.ts';
import { registerLists } from './lists.ts';
import { registerAccountPages } from './account.ts';
import { registerBirthdays } from './birthdays.ts';
import { registerSubaccounts } from './subaccounts.ts';

export function registerConsole(app: FastifyInstance, ctx: AppContext, logger: Logger): void {
  const r = new ConsoleRouter(app, ctx, logger);
  registerAssets(r);
  registerLogin(r);
  registerTokens(r);
  registerIps(r);
  registerPush(r);
  registerCampaigns(r);
  registerLists(r);
  registerAccountPages(r);
  registerBirthdays(r);
  registerSubaccounts(r);
  r.get('/console', async (c) => {
    const { t, account } = c;
    return c.render(t.home, `<ul class="stats">
<li>${esc(t.credits)}<b>${esc(account.credits)}</b></li>
<li>${esc(t.international)}<b>₪${esc(formatShekels(account.intl_agorot))}</b></li></ul>`);
  });
}
