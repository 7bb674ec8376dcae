/**
 * rspamd's HTTP protocol (POST /checkv2 with the raw message and the envelope as headers); used
 * instead of the built-in scoring when POSTHORN_RSPAMD_URL is set.
 */
import type { Deps } from "../context.ts";
import type { Logger } from "../log.ts";
import { headerSafe } from "./listener.ts";
import { plainIp, sumScore, type SpamSymbol, type SpamVerdict } from "./spam.ts";

export class RspamdError extends Error {
  override name = "RspamdError";
}

/**
 * What this node has seen of rspamd: an outage is logged once, at its first failure, and its end
 * once; every failure is counted for /metrics (posthorn_rspamd_failures_total).
 */
export class RspamdHealth {
  failures = 0;
  private downSince: number | null = null;

  /** How long rspamd has been failing without a success in between; 0 when it is up. */
  downForMs(now = Date.now()): number {
    return this.downSince === null ? 0 : now - this.downSince;
  }

  failed(log: Logger, err: RspamdError, fallbackSeconds: number): void {
    this.failures++;
    if (this.downSince !== null) return;
    this.downSince = Date.now();
    log.warn(`rspamd unreachable: received mail waits for it at most ${fallbackSeconds} s (POSTHORN_RSPAMD_FALLBACK_SECONDS), then the built-in rules score it`, {
      error: err.message,
    });
  }

  succeeded(log: Logger): void {
    if (this.downSince === null) return;
    log.info("rspamd reachable again", { down_ms: Date.now() - this.downSince });
    this.downSince = null;
  }
}

const healthOf = new WeakMap<Pick<Deps, "config">, RspamdHealth>();

/** The node's rspamd health (one per running server). */
export function rspamdHealthOf(deps: Pick<Deps, "config">): RspamdHealth {
  let h = healthOf.get(deps);
  if (!h) healthOf.set(deps, (h = new RspamdHealth()));
  return h;
}

type RspamdSymbol = { name?: string; score?: number; metric_score?: number; options?: unknown[]; description?: string };
type RspamdReply = { score?: number; symbols?: Record<string, RspamdSymbol> };

export async function checkWithRspamd(
  baseUrl: string,
  raw: Buffer,
  env: { ip: string; helo: string; mailFrom: string; recipients: string[]; queueId: string; hostname: string },
  timeoutMs = 10_000,
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
