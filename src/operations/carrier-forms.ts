// What a form needs to add a carrier of each protocol: its `yona admin add-carrier` options (name, flag or value,
// required, secret), and the settings document those values make, built by the protocol's own add-carrier code so
// the console's form and the CLI cannot drift apart. A protocol without options takes its settings as JSON.
import { carrierSecrets, protocols } from '../carriers/index.ts';
import { LIMIT_OPTIONS, limitSettings } from '../carriers/limits.ts';
import type { CliValues } from '../carriers/protocol-cli.ts';
import { ConfigError } from '../domain/errors.ts';

export interface CarrierFormField {
  /** The option's name without `--` (e.g. `system-id`). */
  option: string;
  /** A switch (`--tls`) rather than a value. */
  flag: boolean;
  required: boolean;
  /** A password or token: never shown back. */
  secret: boolean;
  /** The values it takes, when its usage names them (`--bind transceiver|tx+rx`); any text when absent. */
  choices?: string[];
}

export interface CarrierFormProtocol {
  protocol: string;
  /** Its options; undefined: the protocol takes a settings document (JSON). */
  fields: CarrierFormField[] | undefined;
}

const camel = (option: string) => option.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());

/** The values an option takes as its usage line lists them (`--bind transceiver|tx+rx`), if it lists them. */
function choicesIn(usage: string, option: string): string[] | undefined {
  const listed = new RegExp(`--${option} ([\\w.+-]+(?:\\|[\\w.+-]+)+)`).exec(usage)?.[1];
  return listed?.split('|');
}

/** Every registered protocol with its add-carrier options, in registration order. */
export function carrierFormProtocols(): CarrierFormProtocol[] {
  return protocols().map(([protocol, p]) => {
    const secrets = carrierSecrets(protocol);
    const cli = p.cli;
    return {
      protocol,
      fields: cli
        ? Object.entries(cli.options).map(([option, spec]) => ({
            option,
            flag: spec.type === 'boolean',
            required: cli.required.includes(option),
            secret: secrets.includes(camel(option)),
            choices: choicesIn(cli.usage, option),
          }))
        : undefined,
    };
  });
}

/** The options every protocol takes besides its own: the daily cap and the cost per part. */
export function carrierLimitFields(): CarrierFormField[] {
  return Object.keys(LIMIT_OPTIONS).map((option) => ({ option, flag: false, required: false, secret: false }));
}

/**
 * The settings document of a protocol's option values and the limits' (`carrierLimitFields`), as
 * `yona admin add-carrier` makes it; `document` is the settings of a protocol without options. A ConfigError names a
 * required option left empty or the option at fault.
 */
export function carrierSettingsFromOptions(
  protocol: string,
  values: CliValues,
  document: Record<string, unknown> = {},
): Record<string, unknown> {
  const cli = protocols().find(([name]) => name === protocol)?.[1].cli;
  if (!cli) return { ...document, ...limitSettings(values) };
  const missing = cli.required.filter((option) => values[option] === undefined || values[option] === '');
  if (missing.length) throw new ConfigError(`fill in ${missing.map((o) => `--${o}`).join(', ')}`);
  return { ...cli.settings(values, () => {}), ...limitSettings(values) };
}
