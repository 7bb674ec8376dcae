/**
 * rspamd's HTTP protocol (POST /checkv2 with the raw message and the envelope as headers); used
 * instead of the built-in scoring when POSTHORN_RSPAMD_URL is set.
 */
import { headerSafe } from "./listener.ts";
import { plainIp, sumScore, type SpamSymbol, type SpamVerdict } from "./spam.ts";

export class RspamdError extends Error {
  override name = "RspamdError";
}

type RspamdSymbol = { name?: string; score?: number; metric_score?: number; options?: unknown[]; description?: string };
type RspamdReply = { score?: number; symbols?: Record<string, RspamdSymbol> };

export async function checkWithRspamd(
  baseUrl: string,
  raw: Buffer,
  env: { ip: string; helo: string; mailFrom: string; recipients: string[]; queueId: string; hostname: string },
  timeoutMs = 15_000,
): Promise<SpamVerdict> {
  const headers = new Headers({
    "Content-Type": "message/rfc822",
    IP: headerSafe(plainIp(env.ip), 64),
    Helo: headerSafe(env.helo),
    "Queue-Id": env.queueId,
    "MTA-Name": env.hostname,
  });
  if (env.mailFrom) headers.set("From", headerSafe(env.mailFrom, 320));
  for (const r of env.recipients) headers.append("Rcpt", headerSafe(r, 320));
  let res: Response;
  try {
    res = await fetch(`${baseUrl.replace(/\/+$/, "")}/checkv2`, { method: "POST", headers, body: raw, signal: AbortSignal.timeout(timeoutMs) });
  } catch (err) {
    throw new RspamdError(`rspamd unreachable: ${(err as Error).message}`);
  }
  if (!res.ok) throw new RspamdError(`rspamd answered ${res.status}`);
  let body: RspamdReply;
  try {
    body = (await res.json()) as RspamdReply;
  } catch {
    throw new RspamdError("rspamd answered something that is not JSON");
  }
  const symbols: SpamSymbol[] = Object.entries(body.symbols ?? {})
    .map(([key, s]) => ({
      name: s.name ?? key,
      score: typeof s.score === "number" ? s.score : (s.metric_score ?? 0),
      options: Array.isArray(s.options) ? s.options.map(String) : [],
      description: s.description ?? "",
    }))
    .sort((a, b) => b.score - a.score || a.name.localeCompare(b.name));
  const score = typeof body.score === "number" ? Math.round(body.score * 100) / 100 : sumScore(symbols);
  return { score, symbols, engine: "rspamd" };
}
