// A carrier whose secret (an SMPP password, a trunk's password) is sealed in the store under another secret key
// than this node's: it never connects with a wrong password. It takes no submits and holds none of the carrier's
// shares (another node, with the right key, may hold them all), says why in one log line when it starts, and
// reports itself down with that reason, so /healthz, `yona admin carriers --status` and `carrier.down` show it.
import type { Carrier, CarrierCondition, CarrierConfigBase, CarrierLogger, SubmitResult } from './types.ts';

export class UnopenedCarrier implements Carrier {
  readonly name: string;
  readonly protocol: string;
  readonly inFlightLimit = 1;
  /** A voice trunk starts no call here (its presence tells the dispatcher a trunk). */
  readonly freeSlots?: () => number;
  private readonly problem: string;
  private downSince = Date.now();

  constructor(
    private readonly config: CarrierConfigBase,
    voice: boolean,
    private readonly logger: CarrierLogger,
  ) {
    this.name = config.name;
    this.protocol = config.protocol ?? 'smpp';
    if (voice) this.freeSlots = () => 0;
    this.problem =
      `its ${(config.unopenedSecrets ?? []).join(', ')} is sealed with another secret key than this node's ` +
      '(YONA_SECRET_KEY or secret.key in the data dir): not connected on this node';
  }

  async start(): Promise<void> {
    this.downSince = Date.now();
    this.logger.error(
      { event: 'carrier.secret_unopened', carrier: this.name, settings: this.config.unopenedSecrets },
      `carrier ${this.name}: ${this.problem}; give every node the same YONA_SECRET_KEY, or add the carrier again with yona admin add-carrier`,
    );
  }

  async submit(): Promise<SubmitResult> {
    return { ok: false, transient: true, error: this.problem, elsewhere: true };
  }

  onReceipt(): void {}
  onInbound(): void {}

  canSubmit(): boolean {
    return false;
  }

  condition(): CarrierCondition {
    return {
      bindsUp: 0,
      bindsHeld: 0,
      bindsWanted: typeof this.config.binds === 'number' ? this.config.binds : 1,
      windowInUse: 0,
      windowSize: 0,
      downSince: this.downSince,
      graceMs: 0,
      lastError: { text: this.problem, at: this.downSince },
    };
  }

  async stop(): Promise<void> {}
}
