import { readFileSync } from "node:fs";

/** Ports handed out by this process, so that two servers it has yet to start never get the same one. */
const handedOut = new Set<number>();

/** The low end of the kernel's ephemeral range (net.ipv4.ip_local_port_range; 32768 by default). */
function ephemeralLow(): number {
  try {
    const low = Number(readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0]);
    return Number.isInteger(low) && low > 12_000 ? low : 32_768;
  } catch {
    return 32_768;
  }
}

/**
 * A loopback port nobody listens on, for a server that must be told its port before it binds (a
 * `serve` subprocess, PostgreSQL, Postfix) or for a port meant to refuse connections.
 *
 * Picked below the kernel's ephemeral range. The kernel hands ports of that range to bind(0)
 * and to the local end of every outgoing connection, so a port found free there could be taken
 * by any connection the suite opens before the server binds it (EADDRINUSE, seen in CI); below
 * it only an explicit bind can take it.
 */
export function freePort(): number {
  const low = ephemeralLow();
  for (let tries = 0; tries < 500; tries++) {
    const port = 10_000 + Math.floor(Math.random() * (low - 10_000));
    if (handedOut.has(port)) continue;
    try {
      const listener = Bun.listen({ hostname: "127.0.0.1", port, socket: { data() {} } });
      listener.stop(true);
    } catch {
      continue; // in use
    }
    handedOut.add(port);
    return port;
  }
  throw new Error("no free loopback port below the ephemeral range");
}
