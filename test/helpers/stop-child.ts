// Stopping a child process the tests started (yona serve, the simulators, Kannel's boxes): SIGTERM, then SIGKILL
// if it has not exited within the grace period.
import type { ChildProcess } from 'node:child_process';

/** SIGTERM, SIGKILL after `graceMs`; resolves with what `exited` (the child's exit, awaited since it spawned) gives. */
export async function stopChild<T>(child: ChildProcess, exited: Promise<T>, graceMs = 10_000): Promise<T> {
  if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
  const killer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  try {
    return await exited;
  } finally {
    clearTimeout(killer);
  }
}
