// `node smsc-list-and-kill.mjs CONTROL_URL PID`: reads a `yona smsc-sim`'s received list over its control channel
// and kills the simulator (-9) the moment the answer starts, writing the list to stdout. A process of its own, so
// the kill is not delayed behind a busy benchmark process.
import { get } from 'node:http';

const [url, pid] = process.argv.slice(2);
get(`${url}/messages`, (res) => {
  process.kill(Number(pid), 'SIGKILL');
  res.pipe(process.stdout);
}).on('error', (err) => {
  process.stderr.write(`${err.message}\n`);
  process.exit(1);
});
