// The SDK's generated types follow the OpenAPI document: the committed sdk/src/generated/openapi.ts is what
// `npm run sdk:types` writes from the document the server serves now (else this fails: regenerate), and a change
// of the document changes what compiles: code reading a reply field the document renamed fails to type-check
// against the regenerated types (TypeScript's compiler on an in-memory program); replies are typed per operation
// and an idempotency key is a type error on an operation that takes none. The examples of docs/sdk.md
// type-check against the SDK as well (test/sdk/sdk-docs.test.ts runs them).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { it } from 'node:test';
import ts from 'typescript';
import { GENERATED_PATH, generateSdkTypes } from '../../scripts/sdk-types.ts';
import { openApiDocument } from '../../src/http/openapi/document.ts';
import { docsProgram } from './docs-program.ts';

const SDK = join(import.meta.dirname, '../../sdk');
const SNIPPET_PATH = join(SDK, 'src/snippet-check.ts');
const DOCS_PATH = join(SDK, 'src/docs-check.ts');
const SNIPPET = `import { Yona } from './index.js';
const yona = new Yona({ baseUrl: 'http://127.0.0.1', token: 't', username: 'u' });
const sent = await yona.sms({ source: 'Yona', message: 'hi' }, { idempotencyKey: 'k' });
export const id: number = sent.campaign_id;
export const ok: 0 = sent.status;
// @ts-expect-error only sms, bulk, send_otp and updateAmountSub take an idempotency key
await yona.balance({}, { idempotencyKey: 'k' });
`;

/** Type errors of the file `root` (SNIPPET or the docs' program) with `generated` as the SDK's generated module. */
function typeErrors(generated: string, root: string, reuse?: ts.Program): { errors: string[]; program: ts.Program } {
  const options: ts.CompilerOptions = {
    ...ts.parseJsonConfigFileContent(JSON.parse(readFileSync(join(SDK, 'tsconfig.json'), 'utf8')), ts.sys, SDK).options,
    noEmit: true,
    declaration: false,
    emitDeclarationOnly: false,
  };
  const host = ts.createCompilerHost(options);
  const virtual = new Map([
    [GENERATED_PATH, generated],
    [SNIPPET_PATH, SNIPPET],
    [DOCS_PATH, docsProgram('./index.js')],
  ]);
  const { getSourceFile, readFile, fileExists } = host;
  host.readFile = (path) => virtual.get(path) ?? readFile.call(host, path);
  host.fileExists = (path) => virtual.has(path) || fileExists.call(host, path);
  host.getSourceFile = (path, version, ...rest) =>
    virtual.has(path)
      ? ts.createSourceFile(path, virtual.get(path)!, version)
      : getSourceFile.call(host, path, version, ...rest);
  const program = ts.createProgram([root], options, host, reuse);
  const errors = ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
  return { errors, program };
}

it('the committed generated types are what the current OpenAPI document generates (else: npm run sdk:types)', async () => {
  const committed = readFileSync(GENERATED_PATH, 'utf8');
  assert.ok(committed === (await generateSdkTypes()), 'sdk/src/generated/openapi.ts is stale: run npm run sdk:types');
});

it('a reply field renamed in the document breaks code using it once the types are regenerated', async () => {
  const current = await generateSdkTypes();
  const changed = structuredClone(openApiDocument()) as Record<string, any>;
  const reply = changed.components.schemas.smsReply;
  reply.properties.campaign = reply.properties.campaign_id;
  delete reply.properties.campaign_id;
  reply.required = reply.required.map((f: string) => (f === 'campaign_id' ? 'campaign' : f));
  const regenerated = await generateSdkTypes(changed);
  assert.notEqual(regenerated, current);

  const before = typeErrors(current, SNIPPET_PATH);
  assert.deepEqual(before.errors, []);
  const after = typeErrors(regenerated, SNIPPET_PATH, before.program);
  assert.ok(
    after.errors.some((e) => e.includes("Property 'campaign_id' does not exist")),
    `expected a type error on campaign_id, got: ${after.errors.join('; ')}`,
  );
});

it('the examples of docs/sdk.md type-check against the SDK', async () => {
  assert.deepEqual(typeErrors(readFileSync(GENERATED_PATH, 'utf8'), DOCS_PATH).errors, []);
});
