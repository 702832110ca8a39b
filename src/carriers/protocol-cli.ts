// What a protocol adds to `yona admin add-carrier` and `yona admin carriers`: its options, the settings document
// they make (the same keys as the carriers file), and a one-line description of a carrier (never its secrets).
import type { ParseArgsConfig } from 'node:util';
import type { CarrierConfigBase } from './types.ts';

/** Parsed option values, by option name. */
export type CliValues = Record<string, string | boolean | undefined>;

export interface ProtocolCli {
  /** The options after NAME in the usage line, e.g. `--host H --port P [--tls]`. */
  usage: string;
  /** Its options, as node:util parseArgs takes them. */
  options: NonNullable<ParseArgsConfig['options']>;
  /** Options without which the command prints its usage. */
  required: string[];
  /**
   * The settings document of these options (read back through the protocol's settings schema); throws a
   * ConfigError naming the option at fault. `note` prints a warning that does not stop the command.
   */
  settings(values: CliValues, note: (line: string) => void): Record<string, unknown>;
  /** One line saying how a carrier of this protocol is reached (passwords never shown). */
  describe(config: CarrierConfigBase): string;
}
