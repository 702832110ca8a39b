// Preloaded (node --import) into the processes `bench cli` times: at exit, writes the process's CPU time in
// milliseconds (user + system) to the file named by BENCH_CPU_FILE.
import { writeFileSync } from 'node:fs';

const file = process.env.BENCH_CPU_FILE;
if (file)
  process.once('exit', () => {
    const { user, system } = process.cpuUsage();
    writeFileSync(file, String(Math.round((user + system) / 1000)));
  });
