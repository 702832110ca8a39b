// The bundled WhatsApp Cloud API simulator: what the CLI, `yona serve` and tests import.
export { bundledWhatsAppSimulator } from './bundled.ts';
export { waSimCommand } from './command.ts';
export { WhatsAppSimulatorClient } from './control.ts';
export { ERRORS, type MetaError, OUTCOMES, outcomeFor, type Outcome } from './outcomes.ts';
export {
  type BusinessNumber,
  type InboundAnswer,
  type SentWhatsAppMessage,
  WhatsAppSimulator,
} from './simulator.ts';
export {
  DEFAULT_SIM_APP_SECRET,
  DEFAULT_SIM_TOKEN,
  DEFAULT_STATUS_DELAY_MS,
  type RunningWhatsAppSimulator,
  startWhatsAppSimulator,
  type WhatsAppSimulatorOptions,
} from './start.ts';
export { placeholderCount, renderTemplate, SHIPPED_TEMPLATES, type SimulatedTemplate } from './templates.ts';
export { bsuidFor, isBsuid } from './users.ts';
export { hubSignature, type WebhookDelivery } from './webhooks.ts';
