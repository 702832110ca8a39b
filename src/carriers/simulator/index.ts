// The bundled SMSC simulator: what the CLI and tests import.
export { SmscSimulator, type SimulatorOptions, type SimulatorStats, type ReceivedMessage } from './smsc.ts';
export { SimulatorClient, startControlServer, type SimulatorControl } from './control.ts';
export { SIM_ID_FORMATS, type SimIdFormat } from './ids.ts';
export { DEFAULT_RULES, outcomeFor, type OutcomeRule } from './outcomes.ts';
export { CallSimulator, CALL_RULES, callBehaviour, type CallBehaviour, type ReceivedCall } from './uas.ts';
