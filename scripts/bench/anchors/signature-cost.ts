// What one RSA-2048 DKIM signature costs on this machine, with the library the server picks here
// (src/mail/dkim.ts times OpenSSL against BoringSSL at its first signature): the one cost per
// message delivered that no code of Posthorn's can lower, against which the anchors' CPU budgets
// are read.
import { generateDkimKeyPair } from "../../../src/dns/dkim-key.ts";
import { dkimSign, rsaLibrary } from "../../../src/mail/dkim.ts";
import { composeSampleMessage } from "../dkim-sample.ts";

const key = { domain: "sender.test", selector: "ph1", privateKeyPem: generateDkimKeyPair().privateKeyPem };
const raw = composeSampleMessage();

/**
 * CPU per signature of a ~4 KB message, 16 at a time as the server's deliveries sign (this
 * process's CPU, all threads: WebCrypto signs on Bun's pool).
 */
export async function signatureCost(count = 480): Promise<{ ms: number; library: string }> {
  for (let i = 0; i < 50; i++) await dkimSign(raw, key); // the library chosen, the key imported, the code compiled
  const cpu = process.cpuUsage();
  for (let i = 0; i < count; i += 16) await Promise.all(Array.from({ length: 16 }, () => dkimSign(raw, key)));
  const { user, system } = process.cpuUsage(cpu);
  return { ms: (user + system) / 1000 / count, library: rsaLibrary() ?? "none" };
}
