/**
 * A real authoritative DNS server on loopback UDP for tests (dns2's packet codec). Zones are
 * mutable: tests publish, change and break records while the server runs.
 *
 *   const dns = await startDnsServer();
 *   dns.set("example.test", "MX", [{ exchange: "mx.example.test", priority: 10 }]);
 *   dns.set("mx.example.test", "A", ["127.0.0.1"]);
 *   env POSTHORN_DNS_SERVERS = dns.server   // "127.0.0.1:PORT"
 *
 * Names with no records answer NXDOMAIN; a name with records but none of the asked type answers
 * NODATA. dns.fail(name, "SERVFAIL" | "TIMEOUT" | "REFUSED") makes a name misbehave.
 */
import dns2 from "dns2";

const { Packet } = dns2 as unknown as { Packet: any };
type DnsServer = { listen(o: unknown): Promise<void>; close(): Promise<void>; addresses(): { udp: { port: number } } };
const createServer = (dns2 as unknown as { createServer(o: unknown): DnsServer }).createServer;

export type MxValue = { exchange: string; priority: number };
/** TXT: a string (split into 255-byte strings on the wire, like real zone files) or explicit strings. */
export type TxtValue = string | string[];
type RecordSet = { A?: string[]; AAAA?: string[]; MX?: MxValue[]; TXT?: TxtValue[]; CNAME?: string[] };
type RType = keyof RecordSet;

const TYPES: Record<number, RType> = { 1: "A", 28: "AAAA", 15: "MX", 16: "TXT", 5: "CNAME" };

const norm = (name: string) => name.toLowerCase().replace(/\.$/, "");

export interface TestDnsServer {
  /** "127.0.0.1:PORT", for POSTHORN_DNS_SERVERS. */
  server: string;
  port: number;
  set<T extends RType>(name: string, type: T, values: NonNullable<RecordSet[T]>): void;
  remove(name: string, type?: RType): void;
  fail(name: string, how: "SERVFAIL" | "TIMEOUT" | "REFUSED" | null): void;
  /** Queries answered, for tests of bounded concurrency. */
  stats: { queries: number; inflightMax: number };
  /** Delay every answer by this many ms (to observe concurrency). */
  delayMs: number;
  close(): Promise<void>;
}

const chunk = (s: string) => {
  const parts: string[] = [];
  for (let i = 0; i < s.length; i += 255) parts.push(s.slice(i, i + 255));
  return parts.length ? parts : [""];
};

export async function startDnsServer(): Promise<TestDnsServer> {
  const zone = new Map<string, RecordSet>();
  const failures = new Map<string, "SERVFAIL" | "TIMEOUT" | "REFUSED">();
  let inflight = 0;
  const api = { stats: { queries: 0, inflightMax: 0 }, delayMs: 0 } as TestDnsServer;

  const answersFor = (name: string, type: RType, depth = 0): any[] => {
    const set = zone.get(name);
    if (!set) return [];
    const base = { name, class: Packet.CLASS.IN, ttl: 60 };
    if (type !== "CNAME" && set.CNAME?.length && depth < 8) {
      const target = norm(set.CNAME[0]!);
      return [{ ...base, type: Packet.TYPE.CNAME, domain: target }, ...answersFor(target, type, depth + 1)];
    }
    switch (type) {
      case "A":
        return (set.A ?? []).map((address) => ({ ...base, type: Packet.TYPE.A, address }));
      case "AAAA":
        return (set.AAAA ?? []).map((address) => ({ ...base, type: Packet.TYPE.AAAA, address }));
      case "MX":
        return (set.MX ?? []).map((mx) => ({ ...base, type: Packet.TYPE.MX, exchange: mx.exchange, priority: mx.priority }));
      case "TXT":
        return (set.TXT ?? []).map((v) => ({ ...base, type: Packet.TYPE.TXT, data: Array.isArray(v) ? v : chunk(v) }));
      case "CNAME":
        return (set.CNAME ?? []).map((domain) => ({ ...base, type: Packet.TYPE.CNAME, domain }));
    }
  };

  const server = createServer({
    udp: true,
    handle: async (request: any, send: (r: unknown) => void) => {
      api.stats.queries++;
      inflight++;
      api.stats.inflightMax = Math.max(api.stats.inflightMax, inflight);
      try {
        if (api.delayMs) await Bun.sleep(api.delayMs);
        const response = Packet.createResponseFromRequest(request);
        const q = request.questions[0];
        const name = norm(q.name);
        const failure = failures.get(name);
        if (failure === "TIMEOUT") return;
        if (failure) {
          response.header.rcode = failure === "SERVFAIL" ? 2 : 5;
          return send(response);
        }
        const type = TYPES[q.type];
        if (!zone.has(name)) response.header.rcode = 3;
        else if (type) response.answers.push(...answersFor(name, type));
        response.header.aa = 1;
        send(response);
      } finally {
        inflight--;
      }
    },
  });
  await server.listen({ udp: { port: 0, address: "127.0.0.1" } });
  const port = server.addresses().udp.port;

  return Object.assign(api, {
    server: `127.0.0.1:${port}`,
    port,
    set(name: string, type: RType, values: unknown[]) {
      const set = zone.get(norm(name)) ?? {};
      (set as Record<string, unknown>)[type] = values;
      zone.set(norm(name), set);
    },
    remove(name: string, type?: RType) {
      if (!type) return void zone.delete(norm(name));
      const set = zone.get(norm(name));
      if (set) delete set[type];
    },
    fail(name: string, how: "SERVFAIL" | "TIMEOUT" | "REFUSED" | null) {
      if (how) failures.set(norm(name), how);
      else failures.delete(norm(name));
    },
    close: () => server.close(),
  }) as TestDnsServer;
}
