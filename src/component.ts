// The contract between the process (service.ts) and its parts: a component (a worker, the simulators, the public
// pages) starts with what the process shares (ComponentHost) and stops before the store closes.
import type { FastifyInstance } from 'fastify';
import type { Registry } from 'prom-client';
import type { ClusterNode } from './cluster/node.ts';
import type { Config } from './config.ts';
import type { Role } from './domain/roles.ts';
import type { Logger } from './logger.ts';
import type { LocalSignals } from './signals.ts';
import type { Store } from './store/engine/db.ts';

/** What the process gives its components. */
export interface ComponentHost {
  config: Config;
  store: Store;
  logger: Logger;
  /** The process's Prometheus registry (served at /metrics). */
  metrics: { registry: Registry };
  signals: LocalSignals;
  clock: () => number;
  /** This node among the nodes of the database: its roles and leases. */
  node: ClusterNode;
  /** Its plain-HTTP listener, once listening (the bundled simulators post their webhooks to it). */
  http?: { httpPort: number };
}

/** A piece of the process that starts after the store and stops before it (workers, simulators). */
export interface Component {
  name: string;
  start(host: ComponentHost): Promise<void>;
  stop(): Promise<void>;
  /** Routes this component serves (public pages), registered before listening. */
  routes?: (app: FastifyInstance) => void;
  /** How the roles it serves are doing, for /healthz. */
  health?: () => RoleHealth[];
  /** The channels ('sms', 'voice') a bundled simulator serves on this node now, for /healthz. */
  simulators?: () => string[];
  /** Carriers' webhooks, which the HTTP edge of an API node mounts under /webhooks/<protocol>/<carrier>. */
  webhooks?: WebhookIngress;
}

/** One request to /webhooks/<protocol>/<carrier>[/<path>], as the HTTP edge hands it on. */
export interface WebhookRequest {
  protocol: string;
  carrier: string;
  method: string;
  /** Below the carrier's address, without slashes around it ('' for the address itself). */
  path: string;
  query: Record<string, string>;
  headers: Record<string, string | undefined>;
  body: Buffer;
}

/** What the HTTP edge answers a webhook request. */
export interface WebhookAnswer {
  status: number;
  body?: string;
  contentType?: string;
}

/** The port through which the HTTP edge hands carriers' webhooks to the part that knows the protocols. */
export interface WebhookIngress {
  /** The largest body any protocol takes (each protocol checks its own). */
  readonly maxBodyBytes: number;
  /** Answers one request; any events it carried are stored before it resolves. */
  receive(request: WebhookRequest): Promise<WebhookAnswer>;
}

/** A role's state on this node: ok false answers /healthz with 503. */
export interface RoleHealth {
  role: Role;
  ok: boolean;
  [detail: string]: unknown;
}
