/**
 * Two independent DKIM verifiers for tests: mailauth, with keys from a loopback DNS server, and
 * dkimpy (test/support/dkim-verify.py: Debian's python3-dkim with python3-nacl), with keys from
 * a map. Each answers one [result, a=, s=] per signature, sorted. No lookup leaves the machine.
 */
import { join } from "node:path";
import { dkimVerify } from "mailauth/lib/dkim/verify";
import { DnsResolver } from "../../src/dns/resolver.ts";
import { tempDir } from "../helpers.ts";

/** [result, a=, s=] */
export type Verdict = string[];

/** mailauth's verdict on each signature, keys looked up on the DNS server at `dnsServer` (host:port). */
export async function mailauthVerdicts(raw: Buffer, dnsServer: string): Promise<Verdict[]> {
  const resolver = new DnsResolver([dnsServer]);
  const { results } = await dkimVerify(raw, {
    resolver: async (name: string, type: string) => {
      if (type !== "TXT") throw Object.assign(new Error("no"), { code: "ENOTFOUND" });
      return (await resolver.txt(name)).map((r) => [r]);
    },
  });
  // algo (the a= tag) is in mailauth's results but not in its type declarations.
  return results.map((r): Verdict => [r.status.result, (r as typeof r & { algo: string }).algo, r.selector ?? ""]).sort();
}

/** dkimpy's verdict on each signature, keys from `txt` (record name → content). */
export async function dkimpyVerdicts(raw: Buffer, txt: Record<string, string>): Promise<Verdict[]> {
  const records = join(tempDir(), `dkim-records-${Date.now()}-${Math.random().toString(36).slice(2)}.json`);
  await Bun.write(records, JSON.stringify(txt));
  const proc = Bun.spawn(["/usr/bin/python3", join(import.meta.dir, "dkim-verify.py"), records], { stdin: new Blob([raw]), stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  if (code !== 0) throw new Error(`dkim-verify.py exited ${code}: ${err}`);
  return (JSON.parse(out) as { a: string; s: string; pass: boolean }[]).map((r): Verdict => [r.pass ? "pass" : "fail", r.a, r.s]).sort();
}
