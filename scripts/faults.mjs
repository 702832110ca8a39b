// `npm run faults`: the fault suite on its own (it also runs within `npm test`): kill -9 mid-campaign and
// mid-transfer, the concurrent-limit bursts on one node and across two, the fuzz over every operation (10,000
// bodies per store here, FUZZ_ITERATIONS to change it; 400 within `npm test`) and over every console route (10,000
// requests per store here, CONSOLE_FUZZ_ITERATIONS; 1,000 within `npm test`). Runs them through scripts/test.mjs,
// then prints the figures each reported (its `FAULTS` lines) together at the end.
import { spawn } from 'node:child_process';

const files = ['test/faults/', 'test/e2e/carriers-kill.test.ts'];
const env = {
  ...process.env,
  FUZZ_ITERATIONS: process.env.FUZZ_ITERATIONS ?? '10000',
  CONSOLE_FUZZ_ITERATIONS: process.env.CONSOLE_FUZZ_ITERATIONS ?? '10000',
};
const child = spawn(process.execPath, ['scripts/test.mjs', ...files], { stdio: ['ignore', 'pipe', 'inherit'], env });
const figures = [];
let pending = '';
child.stdout.on('data', (chunk) => {
  process.stdout.write(chunk);
  pending += chunk;
  const lines = pending.split('\n');
  pending = lines.pop();
  for (const line of lines) {
    const at = line.indexOf('FAULTS ');
    if (at >= 0) figures.push(line.slice(at + 'FAULTS '.length).trim());
  }
});
child.on('close', (code) => {
  console.log('\nFault suite figures:');
  for (const figure of figures) console.log(`  ${figure}`);
  console.log(code === 0 ? 'Fault suite: passed' : `Fault suite: FAILED (exit ${code})`);
  process.exit(code ?? 1);
});
