// The SMPP server's series on /metrics: binds now by type, bind refusals by reason, submits by answer,
// deliver_sm by kind and answer, and PDUs refused as malformed or unknown.
import client from 'prom-client';

export interface SmppServerMetrics {
  bindRefusals: client.Counter<'reason'>;
  submits: client.Counter<'command_status'>;
  delivers: client.Counter<'kind' | 'result'>;
  nacks: client.Counter<'why'>;
  submitSeconds: client.Histogram;
}

/** Registers the series; `binds()` is read at each scrape. */
export function registerSmppServerMetrics(
  registry: client.Registry,
  binds: () => Record<'transmitter' | 'receiver' | 'transceiver', number>,
): SmppServerMetrics {
  new client.Gauge({
    name: 'yona_smpp_server_binds',
    help: "Customers' SMPP binds on this node, by bind type",
    labelNames: ['bind_type'],
    registers: [registry],
    collect() {
      for (const [type, n] of Object.entries(binds())) this.set({ bind_type: type }, n);
    },
  });
  return {
    bindRefusals: new client.Counter({
      name: 'yona_smpp_server_bind_refusals_total',
      help: 'SMPP binds refused, by reason',
      labelNames: ['reason'],
      registers: [registry],
    }),
    submits: new client.Counter({
      name: 'yona_smpp_server_submits_total',
      help: 'submit_sm and submit_multi answered, by command_status (0 accepted)',
      labelNames: ['command_status'],
      registers: [registry],
    }),
    delivers: new client.Counter({
      name: 'yona_smpp_server_deliver_sm_total',
      help: 'deliver_sm sent to customers (receipts and inbound texts), by kind and answer (ok, refused, unanswered)',
      labelNames: ['kind', 'result'],
      registers: [registry],
    }),
    nacks: new client.Counter({
      name: 'yona_smpp_server_malformed_total',
      help: 'PDUs answered generic_nack or connections closed for garbage, by why',
      labelNames: ['why'],
      registers: [registry],
    }),
    submitSeconds: new client.Histogram({
      name: 'yona_smpp_server_submit_seconds',
      help: 'Time from a submit_sm to its submit_sm_resp',
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 1, 5],
      registers: [registry],
    }),
  };
}
