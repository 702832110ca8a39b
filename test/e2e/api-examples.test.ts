// Every example of docs/api/*.md runs against a real server on a fresh store set up as the page says: the reply
// must be the documented one (times of day and values shown as … aside), and JSON requests and replies must fit
// the OpenAPI document served at /openapi.json. A page with an `eventually` example runs with the bundled
// simulator, as `npm start` does, and that example is asked again until the simulator's receipt is in. `npm run docs:examples` runs this file alone.
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { request } from 'undici';
import { carriersComponent } from '../../src/delivery/carriers.ts';
import { findOperation, operationNames } from '../../src/operations/index.ts';
import { differences, parseXml, readPage, usernameOf, type Page } from '../helpers/doc-examples.ts';
import { storeTargets } from '../helpers/stores.ts';
import { startTestService, type TestService } from '../helpers/service.ts';

const DIR = join(import.meta.dirname, '../../docs/api');
const PAGES = readdirSync(DIR)
  .filter((f) => f.endsWith('.md'))
  .sort();
/** The examples' clock: 1 March 2026, 10:00 in Israel, running on from there. */
const DOC_TIME = Date.parse('2026-03-01T08:00:00Z');
const DOC_ID = 'https://yona.example/openapi.json';
type Doc = Record<string, any>;

/** Validators for a JSON request body and a JSON reply, from the served document. */
async function schemaValidators(t: TestService) {
  const doc = (await (await request(`${t.httpUrl}/openapi.json`)).body.json()) as Record<string, unknown>;
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  ajv.addSchema({ ...doc, $id: DOC_ID });
  const requestSchema = ajv.getSchema(`${DOC_ID}#/components/schemas/JsonRequest`)!;
  const replySchema = ajv.getSchema(`${DOC_ID}#/paths/~1api/post/responses/200/content/application~1json/schema`)!;
  const check = (validate: typeof requestSchema, value: unknown, what: string) => {
    assert.ok(validate(value), `${what} does not fit the OpenAPI document: ${ajv.errorsText(validate.errors)}`);
  };
  return {
    /** The body against its root element's schema first (a readable error), then against the whole oneOf. */
    request(body: Record<string, unknown>, what: string) {
      const root = Object.keys(body)[0];
      const content = ajv.getSchema(`${DOC_ID}#/components/schemas/${root}Request`);
      assert.ok(content, `${what}: the OpenAPI document has no operation ${root}`);
      check(content, body[root], what);
      check(requestSchema, body, what);
    },
    /** A reply against its operation's success schema, or the error reply; then against the documented anyOf. */
    reply(root: string, reply: { status: number }, what: string) {
      const own = ajv.getSchema(`${DOC_ID}#/components/schemas/${root}Reply`)!;
      const successes = ((own.schema as Doc).properties.status.oneOf as Doc[]).map((c) => c.const);
      const specific = successes.includes(reply.status)
        ? own
        : ajv.getSchema(`${DOC_ID}#/components/schemas/ErrorReply`)!;
      check(specific, reply, what);
      check(replySchema, reply, what);
    },
  };
}

async function setUp(t: TestService, page: Page): Promise<Map<string, string>> {
  const tokens = new Map<string, string>();
  for (const args of page.setup) {
    const out = await t.admin(...args);
    if (args[0] === 'create-token') tokens.set(args[1], out[out.length - 1]);
  }
  return tokens;
}

it('documents every operation of the table with JSON and XML examples', () => {
  const documented = { json: new Set<string>(), xml: new Set<string>() };
  for (const file of PAGES) {
    for (const ex of readPage(join(DIR, file)).examples) {
      const root =
        ex.encoding === 'json'
          ? Object.keys(JSON.parse(ex.request))[0]
          : /^(?:<\?xml[^>]*\?>\s*)?<([\w.-]+)/.exec(ex.request)?.[1];
      documented[ex.encoding].add(root!);
    }
  }
  const operations = new Set(operationNames().map((n) => findOperation(n)));
  for (const op of operations) {
    for (const encoding of ['json', 'xml'] as const) {
      assert.ok(
        op!.names.some((n) => documented[encoding].has(n)),
        `${op!.names[0]} has no ${encoding} example in docs/api/`,
      );
    }
  }
});

for (const file of PAGES) {
  describe(`docs/api/${file}`, () => {
    const page = readPage(join(DIR, file));
    let t: TestService;
    let tokens: Map<string, string>;
    let validate: Awaited<ReturnType<typeof schemaValidators>>;
    before(async () => {
      const started = Date.now();
      const delivers = page.examples.some((ex) => ex.eventually);
      t = await startTestService((await storeTargets())[0], {
        clock: () => DOC_TIME + (Date.now() - started),
        components: delivers ? [carriersComponent()] : [],
      });
      tokens = await setUp(t, page);
      validate = await schemaValidators(t);
    });
    after(() => t.close());

    for (const ex of page.examples) {
      it(`${ex.section}: ${ex.encoding} example at line ${ex.line}`, async () => {
        const token = tokens.get(usernameOf(ex));
        assert.ok(token, `line ${ex.line}: no token set up for the request's user`);
        const ask = () =>
          t.post(ex.request, {
            token,
            contentType: `application/${ex.encoding}; charset=utf-8`,
            dryRun: ex.path === '/api/test',
          });
        const documented: unknown = ex.encoding === 'json' ? JSON.parse(ex.reply) : await parseXml(ex.reply);
        const read = async (text: string) => (ex.encoding === 'json' ? JSON.parse(text) : await parseXml(text));
        let res = await ask();
        for (const until = Date.now() + 15_000; ex.eventually && Date.now() < until; res = await ask()) {
          if (res.httpStatus === 200 && differences(documented, await read(res.text)).length === 0) break;
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        assert.equal(res.httpStatus, 200);
        const received: unknown = await read(res.text);
        if (ex.encoding === 'json') {
          validate.request(JSON.parse(ex.request), `request at line ${ex.line}`);
          validate.reply(
            Object.keys(JSON.parse(ex.request))[0],
            received as { status: number },
            `reply at line ${ex.line}`,
          );
        }
        assert.deepEqual(
          differences(documented, received),
          [],
          `line ${ex.line}: the reply differs from the documented one:\n${res.text}`,
        );
      });
    }
  });
}
