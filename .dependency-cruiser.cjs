// The layers point one way (ARCHITECTURE.md): cli -> service -> http -> operations -> (domain, store, carriers);
// delivery workers -> (store, carriers, domain); store -> domain; carriers -> domain; domain -> nothing of ours.
// support/ holds process-level helpers with no Yona logic (a FIFO semaphore, a self-signed certificate): any layer
// may use them, and they use only domain/.
// `npm run lint:layers` checks src/ against these rules; npm test runs the same check (test/layers.test.ts).
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'domain-is-pure',
      comment: 'domain/ holds pure logic: it imports nothing of ours outside domain/',
      severity: 'error',
      from: { path: '(^|/)src/domain/' },
      to: { path: '(^|/)src/', pathNot: '(^|/)src/domain/' },
    },
    {
      name: 'store-reads-only-domain',
      comment: 'store/ imports only domain/ (and itself)',
      severity: 'error',
      from: { path: '(^|/)src/store/' },
      to: { path: '(^|/)src/', pathNot: ['(^|/)src/store/', '(^|/)src/domain/', '(^|/)src/support/'] },
    },
    {
      name: 'carriers-below-store',
      comment:
        'carriers/ speak protocols: they import only domain/ (and themselves), never the store or the delivery workers',
      severity: 'error',
      from: { path: '(^|/)src/carriers/' },
      to: { path: '(^|/)src/', pathNot: ['(^|/)src/carriers/', '(^|/)src/domain/', '(^|/)src/support/'] },
    },
    {
      name: 'operations-below-http',
      comment: 'operations/ never import the HTTP edge, the delivery workers or the CLI',
      severity: 'error',
      from: { path: '(^|/)src/operations/' },
      to: { path: '(^|/)src/(http|delivery|cli)/' },
    },
    {
      name: 'delivery-below-operations',
      comment: 'the delivery workers use store, carriers and domain, not the operations, the HTTP edge or the CLI',
      severity: 'error',
      from: { path: '(^|/)src/delivery/' },
      to: { path: '(^|/)src/(operations|http|cli)/' },
    },
    {
      name: 'support-is-plain',
      comment: 'support/ helpers use only domain/',
      severity: 'error',
      from: { path: '(^|/)src/support/' },
      to: { path: '(^|/)src/', pathNot: ['(^|/)src/support/', '(^|/)src/domain/'] },
    },
    {
      name: 'http-runs-operations',
      comment:
        'the HTTP edge acts through the operation runner (operations/execute.ts); only these files use the store, ' +
        'for what no operation gives: health (migrations), the public pages (short links, unsubscribe, sender ' +
        'verification) and the console pages that read or change what only the console shows (sessions, tokens, ' +
        'IP allowlist, push registrations, ledger and blocklist pages, lists, campaigns, birthdays, overview, the message log). ' +
        'Types (Account, ...) may be imported anywhere.',
      severity: 'error',
      from: {
        path: '(^|/)src/http/',
        pathNot: [
          '(^|/)src/http/(health|public-pages)[.]ts$',
          '(^|/)src/http/console/(session|tokens|ips|push|account|lists|campaigns|birthdays|overview|messages)[.]ts$',
        ],
      },
      to: { path: '(^|/)src/store/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'http-below-cli',
      comment: 'the HTTP edge never imports the CLI',
      severity: 'error',
      from: { path: '(^|/)src/http/' },
      to: { path: '(^|/)src/cli/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
