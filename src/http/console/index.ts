// The web console at /console (HTTPS only): server-rendered pages, one module per section.
import type { FastifyInstance } from 'fastify';
import type { Logger } from '../../logger.ts';
import type { AppContext } from '../../operations/execute.ts';
import { registerAssets } from './assets.ts';
import { registerLogin } from './login.ts';
import { ConsoleRouter } from './router.ts';
import { registerTokens } from './tokens.ts';
import { registerIps } from './ips.ts';
import { registerSenders } from './senders.ts';
import { registerPush } from './push.ts';
import { registerCampaigns } from './campaigns.ts';
import { registerLists } from './lists.ts';
import { registerAccountPages } from './account.ts';
import { registerBirthdays } from './birthdays.ts';
import { registerSubaccounts } from './subaccounts.ts';
import { registerOverview } from './overview.ts';
import { registerMessages } from './messages.ts';
import { registerMessagePage } from './message-page.ts';
import { registerInbound } from './inbound.ts';
import { registerBalanceExtras } from './balance-extras.ts';
import { registerSend } from './send.ts';
import { registerSubaccountControl } from './subaccount-control.ts';
import { registerSecurity } from './security.ts';
import { registerCodes } from './codes.ts';

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
  registerSenders(r);
  registerBirthdays(r);
  registerSubaccounts(r);
  registerOverview(r);
  registerMessages(r);
  registerMessagePage(r);
  registerInbound(r);
  registerBalanceExtras(r);
  registerSend(r);
  registerSubaccountControl(r);
  registerSecurity(r);
  registerCodes(r);
}
