// GET /healthz: the store answers, migrations are applied, and each role this node runs reports how it is doing
// (its binds, whether it leads). `?role=NAME` asks about one role: 404 when this node does not run it, 503 when
// it is not well. A node whose heartbeat could not be written for a lease time answers 503 for every role.
import type { FastifyInstance } from 'fastify';
import { ROLES, type Role } from '../domain/roles.ts';
import { VERSION } from '../domain/version.ts';
import type { Db } from '../store/engine/db.ts';
import { checkMigrated } from '../store/engine/migrate.ts';

/** What /healthz reads of this node (cluster/node.ts keeps it): its name, roles and last heartbeat. */
export interface NodeHealth {
  readonly name: string;
  readonly roles: readonly Role[];
  /** When its heartbeat was last written, and how long one holds. */
  readonly lastBeatAt: number;
  readonly leaseMs: number;
}

export interface HealthSource {
  db: Db;
  dialect: string;
  node: NodeHealth;
  /** What the components of each role report. */
  health: () => Array<{ role: Role; ok: boolean; [detail: string]: unknown }>;
  /** The channels a bundled simulator serves on this node (none: nothing real is faked). */
  simulators?: () => string[];
  clock: () => number;
}

export function registerHealth(app: FastifyInstance, source: HealthSource): void {
  app.get<{ Querystring: { role?: string } }>('/healthz', async (request, reply) => {
    await checkMigrated(source.db);
    const { node } = source;
    const beating = source.clock() - node.lastBeatAt < node.leaseMs;
    const reports = source.health();
    const roles: Record<string, Record<string, unknown>> = {};
    for (const role of node.roles) {
      const own = reports.filter((r) => r.role === role);
      const details = Object.assign({}, ...own.map(({ role: _r, ok: _o, ...rest }) => rest)) as Record<string, unknown>;
      roles[role] = { ok: beating && own.every((r) => r.ok), ...details };
    }
    const served = source.simulators?.() ?? [];
    const simulators = served.length > 0 ? { simulators: served } : {};
    const asked = request.query.role;
    if (asked !== undefined) {
      if (!(ROLES as readonly string[]).includes(asked))
        return reply.code(404).send({ error: `unknown role "${asked}" (roles: ${ROLES.join(', ')})` });
      if (!roles[asked])
        return reply
          .code(404)
          .send({ error: `this node does not run the ${asked} role`, node: node.name, roles: node.roles });
      return reply.code(roles[asked].ok ? 200 : 503).send({
        status: roles[asked].ok ? 'ok' : 'unhealthy',
        version: VERSION,
        node: node.name,
        role: asked,
        ...roles[asked],
        ...simulators,
      });
    }
    const ok = Object.values(roles).every((r) => r.ok);
    return reply.code(ok ? 200 : 503).send({
      status: ok ? 'ok' : 'unhealthy',
      version: VERSION,
      store: source.dialect,
      node: node.name,
      roles,
      ...simulators,
    });
  });
}
