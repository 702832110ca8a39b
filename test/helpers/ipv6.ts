// Whether this host has an IPv6 loopback (::1) to listen on: the IPv6 tests skip with a notice without one, and
// fail instead when REQUIRE_IPV6=1 (CI).
import net from 'node:net';

async function canListenOnIpv6Loopback(): Promise<boolean> {
  const server = net.createServer();
  return new Promise((resolve) => {
    server.once('error', () => resolve(false));
    server.listen(0, '::1', () => server.close(() => resolve(true)));
  });
}

/** Whether ::1 can be listened on; logs the notice (or throws under REQUIRE_IPV6=1) when it cannot. */
export async function ipv6Available(): Promise<boolean> {
  if (await canListenOnIpv6Loopback()) return true;
  if (process.env.REQUIRE_IPV6 === '1') throw new Error('REQUIRE_IPV6=1 but this host has no IPv6 loopback (::1)');
  console.log(
    '# NOTICE: no IPv6 loopback (::1) on this host; IPv6 tests skipped (REQUIRE_IPV6=1 makes this a failure)',
  );
  return false;
}
