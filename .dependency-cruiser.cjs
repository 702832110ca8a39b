// The layers point one way (docs/architecture.md). Lowest first, each file of src/ in exactly one layer:
//   domain/                                  pure logic, imports nothing of ours
//   support/                                 process-level helpers with no Yona logic (a FIFO semaphore, a certificate)
//   config.ts logger.ts signals.ts secret-key.ts   the process base: settings, log, wake-ups, the sealing key
//   speech/                                  text to speech and G.711 (calls play it, pricing measures it)
//   store/   carriers/                       SQL; protocols (neither imports the other)
//   cluster/ (but leader.ts)                 this node among the nodes: heartbeat, leases, shares, node metrics
//   component.ts                             the contract between the process and its parts (types only)
//   operations/                              the API's operations and their runner
//   delivery/, cluster/leader.ts             the workers, started as components
//   http/                                    the edge: API, console, public pages, /healthz, /metrics
//   service.ts                               composes one process
//   cli/                                     the commands
// A layer imports itself and the layers its rule lists, never one above; no import cycle anywhere (no-circular).
// `npm run lint:layers` checks src/ against these rules; npm test runs the same check (test/layers.test.ts).
const SRC = '^(test/fixtures/layers/)?src/';
const LAYERS = {
  domain: [`${SRC}domain/`],
  support: [`${SRC}support/`],
  base: [`${SRC}(config|logger|signals|secret-key)[.]ts$`],
  speech: [`${SRC}speech/`],
  store: [`${SRC}store/`],
  carriers: [`${SRC}carriers/`],
  cluster: [`${SRC}cluster/(?!leader[.]ts$)`],
  component: [`${SRC}component[.]ts$`],
  operations: [`${SRC}operations/`],
  workers: [`${SRC}delivery/`, `${SRC}cluster/leader[.]ts$`],
  http: [`${SRC}http/`],
  service: [`${SRC}service[.]ts$`],
  cli: [`${SRC}cli/`],
};
const layers = (...names) => names.flatMap((n) => LAYERS[n]);

/** A rule: files of `layer` import only `may` (and their own layer) of src/. */
function onlyBelow(name, layer, may, comment) {
  return {
    name,
    comment,
    severity: 'error',
    from: { path: LAYERS[layer] },
    to: { path: `${SRC}`, pathNot: layers(layer, ...may) },
  };
}

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    onlyBelow('domain-is-pure', 'domain', [], 'domain/ holds pure logic: it imports nothing of ours outside domain/'),
    onlyBelow('support-is-plain', 'support', ['domain'], 'support/ helpers use only domain/'),
    onlyBelow(
      'base-is-low',
      'base',
      ['domain', 'support'],
      'config.ts, logger.ts, signals.ts and secret-key.ts use only domain/ and support/ (and each other)',
    ),
    onlyBelow(
      'speech-is-low',
      'speech',
      ['domain', 'support'],
      'speech/ renders text to audio: it imports only domain/ and support/',
    ),
    onlyBelow('store-reads-only-domain', 'store', ['domain', 'support'], 'store/ imports only domain/ and support/'),
    onlyBelow(
      'carriers-below-store',
      'carriers',
      ['speech', 'domain', 'support'],
      'carriers/ speak protocols: they import only speech/ and domain/ (and themselves), never the store or the delivery workers',
    ),
    onlyBelow(
      'cluster-over-store',
      'cluster',
      ['store', 'carriers', 'base', 'domain', 'support'],
      'cluster/ (node, shares, metrics) keeps this node in the store: it uses the store, carrier types and the base',
    ),
    onlyBelow(
      'component-is-a-contract',
      'component',
      ['cluster', 'store', 'base', 'domain', 'support'],
      'component.ts names what the process gives its parts; it imports nothing from the parts themselves',
    ),
    onlyBelow(
      'operations-below-http',
      'operations',
      ['store', 'carriers', 'speech', 'base', 'domain', 'support'],
      'operations/ never import the HTTP edge, the delivery workers, the cluster or the CLI',
    ),
    onlyBelow(
      'delivery-below-operations',
      'workers',
      ['component', 'cluster', 'store', 'carriers', 'speech', 'base', 'domain', 'support'],
      'the delivery workers (and the leader wrapper) use store, carriers and domain, not the operations, the HTTP edge or the CLI',
    ),
    onlyBelow(
      'http-over-operations',
      'http',
      ['operations', 'component', 'store', 'base', 'domain', 'support'],
      'the HTTP edge acts through the operations; it never imports the workers, the cluster, the service or the CLI',
    ),
    {
      name: 'http-runs-operations',
      comment:
        'the HTTP edge changes state only through the operation runner (operations/execute.ts: public and internal ' +
        'operations); of the store it imports read models only: store/read-models.ts (its read-model port: the reads ' +
        'of the aggregate modules and the console readers), the migration check of /healthz, the console sign-in state ' +
        '(sessions, login failures, a second factor used up: console authorization, not a change of the account) ' +
        "and the public link pages' click count (no account signs in there). Types (Account, ...) may be imported " +
        'anywhere.',
      severity: 'error',
      from: { path: LAYERS.http },
      to: {
        path: LAYERS.store,
        pathNot: [
          `${SRC}store/read-models[.]ts$`,
          `${SRC}store/engine/migrate[.]ts$`,
          `${SRC}store/console-(sessions|security)[.]ts$`,
          `${SRC}store/operator-sessions[.]ts$`,
          `${SRC}store/links[.]ts$`,
        ],
        dependencyTypesNot: ['type-only'],
      },
    },
    {
      name: 'console-sign-in-state',
      comment:
        "only the console's sign-in (session.ts, login.ts, two-factor.ts, security.ts) uses its sign-in state, and " +
        'only the public link pages count a click: every other change goes through an operation',
      severity: 'error',
      from: {
        path: LAYERS.http,
        pathNot: [
          `${SRC}http/console/(session|login|two-factor|security)[.]ts$`,
          `${SRC}http/admin/session[.]ts$`,
          `${SRC}http/public-pages[.]ts$`,
        ],
      },
      to: {
        path: [
          `${SRC}store/console-(sessions|security)[.]ts$`,
          `${SRC}store/operator-sessions[.]ts$`,
          `${SRC}store/links[.]ts$`,
        ],
        dependencyTypesNot: ['type-only'],
      },
    },
    onlyBelow(
      'service-below-cli',
      'service',
      [
        'http',
        'workers',
        'operations',
        'component',
        'cluster',
        'store',
        'carriers',
        'speech',
        'base',
        'domain',
        'support',
      ],
      'service.ts composes the process from every layer but the CLI',
    ),
    {
      name: 'every-file-in-a-layer',
      comment: 'each file of src/ belongs to a layer above (a new top-level file or folder gets its place there)',
      severity: 'error',
      from: { path: SRC, pathNot: Object.values(LAYERS).flat() },
      to: {},
    },
    {
      name: 'no-circular',
      comment: 'no import cycle: a module and what it imports never import it back',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
