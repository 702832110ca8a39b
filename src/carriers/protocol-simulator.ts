// The simulator a protocol brings: `yona serve` with no carrier configured starts every protocol's simulator
// in-process on loopback and binds a carrier to each, so a fresh install sends (and calls) end to end.
import type { ParseArgsConfig } from 'node:util';
import type { CliValues } from './protocol-cli.ts';
import type { CarrierConfigBase } from './types.ts';

/** One protocol's simulator, started. */
export interface BundledSimulator {
  /** The carrier Yona binds to it. */
  carrier: CarrierConfigBase;
  /** The log line saying it started, with where it listens. */
  started: { fields: Record<string, string>; message: string };
  /** What it adds to ${YONA_DATA_DIR}/simulator.json, where `yona sim` finds its control channel. */
  info: Record<string, unknown>;
  /** The running simulator itself (its own class), for tests and benchmarks. */
  instance: unknown;
  /** Lets another protocol's simulator take part (the SMSC's control channel also lists the calls). */
  attach?(other: BundledSimulator): void;
  stop(): Promise<void>;
}

export interface ProtocolSimulator {
  /** `webhooksUrl`: this node's /webhooks address on its own listener, when it takes webhooks. */
  start(options: { receiptDelayMs: number; webhooksUrl?: string }): Promise<BundledSimulator>;
  /** Its standalone command, when it has one. */
  command?: SimulatorCommand;
}

/** A standalone simulator, started by `yona NAME` (what it wrote to simulator.json, and how to stop it). */
export interface StartedCommand {
  info: Record<string, unknown>;
  /** The lines printed once it listens (`infoFile`: where its info was written). */
  listening(infoFile: string): string[];
  stop(): Promise<void>;
}

/** The command that runs a protocol's simulator on its own (`yona smsc-sim`). */
export interface SimulatorCommand {
  name: string;
  usage: string;
  options: NonNullable<ParseArgsConfig['options']>;
  /** Options without which the command prints its usage. */
  required: string[];
  /** Starts it; throws a ConfigError naming an option at fault. */
  start(values: CliValues, dataDir: string): Promise<StartedCommand>;
}
