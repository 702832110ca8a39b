// Real separate hosts on one machine for the multi-node suite: one network namespace per host (`ip netns`),
// each joined by a veth pair to a bridge in the root namespace. Addresses come from 198.18.0.0/15 (the
// benchmarking range): the bridge is 198.18.N.1/24 and the hosts .2, .3, ...; N and every name derive from
// this process id, so concurrent runs do not collide. PostgreSQL listens on 127.0.0.1 only, so a small TCP
// forwarder on the bridge address carries the hosts' connections to it. Everything is removed by cleanup(),
// and on process exit as a last resort; leftovers of earlier runs whose process is gone are removed first.
import { execFile, execFileSync, spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);
const PREFIX = 'yona-mn-';

export interface Host {
  /** Network namespace name. */
  ns: string;
  address: string;
  /** Spawns a command inside this host's namespace (ip netns exec execs it: the child's pid is the command's). */
  spawn(command: string, args: string[], options?: SpawnOptions): ChildProcess;
}

export interface Hosts {
  /** The root namespace's address on the hosts' network (the bridge). */
  bridgeAddress: string;
  hosts: Host[];
  /** Kills children started through the hosts and removes the namespaces, veths and bridge. */
  cleanup(): Promise<void>;
}

/** Why the suite cannot run here (not root, no `ip`, no netns support), or null when it can. */
export async function hostsUnsupported(): Promise<string | null> {
  if (process.platform !== 'linux') return 'network namespaces need Linux';
  if (process.getuid?.() !== 0) return 'ip netns needs root';
  try {
    await run('ip', ['-V']);
  } catch {
    return 'the ip command (iproute2) is not installed';
  }
  const probe = `${PREFIX}probe-${process.pid}`;
  try {
    await run('ip', ['netns', 'add', probe]);
    await run('ip', ['netns', 'del', probe]);
  } catch (err) {
    return `ip netns add fails: ${(err as { stderr?: string }).stderr?.trim() || (err as Error).message}`;
  }
  return null;
}

function ip(...args: string[]): Promise<unknown> {
  return run('ip', args).catch((err: { stderr?: string; message: string }) => {
    throw new Error(`ip ${args.join(' ')}: ${err.stderr?.trim() || err.message}`);
  });
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

// Namespaces and bridges of earlier runs of this suite whose process is gone (a run killed before its cleanup).
async function removeLeftovers(): Promise<void> {
  const { stdout: spaces } = await run('ip', ['netns', 'list']);
  for (const line of spaces.split('\n')) {
    const m = new RegExp(`^(${PREFIX}(\\d+)-\\d+)\\b`).exec(line);
    if (m && !pidAlive(Number(m[2]))) await run('ip', ['netns', 'del', m[1]]).catch(() => {});
  }
  const { stdout: links } = await run('ip', ['-o', 'link', 'show', 'type', 'bridge']);
  for (const line of links.split('\n')) {
    const m = /^\d+: (ymn(\d+)b):/.exec(line);
    if (m && !pidAlive(Number(m[2]))) await run('ip', ['link', 'del', m[1]]).catch(() => {});
  }
}

// A /24 in 198.18.0.0/15 not in use on this machine, starting from one derived from the pid.
async function freeSubnet(): Promise<string> {
  const { stdout } = await run('ip', ['-4', '-o', 'addr', 'show']);
  for (let k = 0; k < 512; k++) {
    const n = (process.pid + k) % 512;
    const prefix = `${n < 256 ? 198.18 : 198.19}.${n % 256}`;
    if (n % 256 === 0 || n % 256 === 255) continue;
    if (!stdout.includes(` ${prefix}.`)) return prefix;
  }
  throw new Error('no free /24 in 198.18.0.0/15');
}

/** Creates `count` hosts on a fresh bridge. */
export async function createHosts(count: number): Promise<Hosts> {
  await removeLeftovers();
  const pid = process.pid;
  const subnet = await freeSubnet();
  const bridge = `ymn${pid}b`;
  const bridgeAddress = `${subnet}.1`;
  const names = Array.from({ length: count }, (_, i) => ({
    ns: `${PREFIX}${pid}-${i + 1}`,
    veth: `ymn${pid}v${i + 1}`,
    peer: `ymn${pid}p${i + 1}`,
    address: `${subnet}.${i + 2}`,
  }));
  const children = new Set<ChildProcess>();
  let removed = false;
  const removeSync = () => {
    if (removed) return;
    removed = true;
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    for (const n of names) {
      try {
        execFileSync('ip', ['netns', 'del', n.ns], { stdio: 'ignore' });
      } catch {
        /* not created */
      }
    }
    try {
      execFileSync('ip', ['link', 'del', bridge], { stdio: 'ignore' });
    } catch {
      /* not created */
    }
  };
  process.once('exit', removeSync);
  try {
    await ip('link', 'add', bridge, 'type', 'bridge');
    await ip('addr', 'add', `${bridgeAddress}/24`, 'dev', bridge);
    await ip('link', 'set', bridge, 'up');
    for (const n of names) {
      await ip('netns', 'add', n.ns);
      await ip('link', 'add', n.veth, 'type', 'veth', 'peer', 'name', n.peer);
      await ip('link', 'set', n.peer, 'netns', n.ns);
      await ip('link', 'set', n.veth, 'master', bridge, 'up');
      await ip('-n', n.ns, 'addr', 'add', `${n.address}/24`, 'dev', n.peer);
      await ip('-n', n.ns, 'link', 'set', n.peer, 'up');
      await ip('-n', n.ns, 'link', 'set', 'lo', 'up');
    }
  } catch (err) {
    removeSync();
    throw err;
  }
  const hosts = names.map(
    (n): Host => ({
      ns: n.ns,
      address: n.address,
      spawn(command, args, options = {}) {
        const child = spawn('ip', ['netns', 'exec', n.ns, command, ...args], options);
        children.add(child);
        child.once('exit', () => children.delete(child));
        return child;
      },
    }),
  );
  return {
    bridgeAddress,
    hosts,
    async cleanup() {
      const exits = [...children]
        .filter((c) => c.exitCode === null && c.signalCode === null)
        .map(
          (c) =>
            new Promise<void>((resolve) => {
              c.once('exit', () => resolve());
              c.kill('SIGKILL');
            }),
        );
      await Promise.race([Promise.all(exits), new Promise((r) => setTimeout(r, 5000))]);
      removeSync();
      process.off('exit', removeSync);
    },
  };
}

export interface Forwarder {
  port: number;
  close(): Promise<void>;
}

// The forwarder's own process: it carries every node's database traffic, so it does not share an event loop
// with the test (which also runs the SMSC simulator).
const FORWARDER = `
import { createServer, connect } from 'node:net';
const [host, targetHost, targetPort] = process.argv.slice(1);
const server = createServer((inbound) => {
  const outbound = connect(Number(targetPort), targetHost);
  inbound.setNoDelay(true);
  outbound.setNoDelay(true);
  inbound.pipe(outbound);
  outbound.pipe(inbound);
  for (const [a, b] of [[inbound, outbound], [outbound, inbound]]) {
    a.on('error', () => b.destroy());
    a.on('close', () => b.destroy());
  }
});
server.listen(0, host, () => console.log('forwarding ' + server.address().port));
process.on('disconnect', () => process.exit(0));
`;

/** A TCP forwarder (its own process) listening on `host` (an ephemeral port) that carries every connection to `target`. */
export async function startForwarder(host: string, target: { host: string; port: number }): Promise<Forwarder> {
  const child = spawn(
    process.execPath,
    ['--input-type=module', '-e', FORWARDER, host, target.host, String(target.port)],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  const deadline = Date.now() + 20_000;
  let m: RegExpExecArray | null;
  while (!(m = /forwarding (\d+)/.exec(out))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`the forwarder did not start: ${out}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  const kill = () => child.kill('SIGKILL');
  process.once('exit', kill);
  return {
    port: Number(m[1]),
    async close() {
      process.off('exit', kill);
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGKILL');
      await exited;
    },
  };
}
