// The operator console at /admin (HTTPS only): server-rendered pages with the customer console's look and assets,
// one module per section. A page: a row in pages.ts, a register function here, its words in i18n.ts.
import type { FastifyInstance } from 'fastify';
import type { Logger } from '../../logger.ts';
import type { AppContext } from '../../operations/execute.ts';
import { registerAdminAccountPage } from './account-page.ts';
import { registerAdminAccounts } from './accounts.ts';
import { registerAdminAlerts } from './alerts.ts';
import { registerAdminAudit } from './audit.ts';
import { registerAdminCarriers } from './carriers.ts';
import { registerAdminMessages } from './messages.ts';
import { registerAdminHome } from './home.ts';
import { registerAdminLogin } from './login.ts';
import { registerAdminMargins } from './margins.ts';
import { registerAdminPrices } from './prices.ts';
import { registerAdminSenders } from './senders.ts';
import { AdminRouter } from './router.ts';

export function registerAdmin(app: FastifyInstance, ctx: AppContext, logger: Logger): void {
  const r = new AdminRouter(app, ctx, logger);
  registerAdminLogin(r);
  registerAdminHome(r);
  registerAdminAccounts(r);
  registerAdminAccountPage(r);
  registerAdminCarriers(r);
  registerAdminMessages(r);
  registerAdminAudit(r);
  registerAdminSenders(r);
  registerAdminPrices(r);
  registerAdminAlerts(r);
  registerAdminMargins(r);
}
