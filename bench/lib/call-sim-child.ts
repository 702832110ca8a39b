// The bundled call simulator in a process of its own, for `bench voice`: the RTP is timed as it arrives at a
// receiver whose event loop carries nothing else. Sends {port} once listening; answers 'calls' with the calls it took.
import { CallSimulator } from '../../src/carriers/simulator/index.ts';

const sim = new CallSimulator();
const port = await sim.start(0);
process.send!({ port });
process.on('message', (m) => {
  if (m === 'calls') process.send!({ calls: sim.calls() });
  if (m === 'stop') void sim.stop().then(() => process.exit(0));
});
