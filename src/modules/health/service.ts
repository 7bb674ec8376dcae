import type { Config } from "../../config.ts";
import type { Deps } from "../../context.ts";
import { ForbiddenError, UnauthenticatedError } from "../../errors.ts";
import { digestsEqual, sha256Hex } from "../../ids.ts";
import { inNetworks, parseCidr } from "../../net/ip.ts";
import { inflowGateOf } from "../../smtp/inflow-gate.ts";
import { rspamdHealthOf } from "../../smtp/rspamd.ts";
import { mailCounterSamples } from "./mail-counters.ts";

/** Networks whose clients read /metrics without a token: loopback and private. */
const INTERNAL = ["127.0.0.0/8", "::1/128", "10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "fc00::/7"].map(parseCidr);

/**
 * Whether a client may read /metrics, which carries every team's mail figures: one on loopback or
 * a private network (`ip`, as for rate limits; null: an in-process call without a socket; not when
 * the request names a client in X-Forwarded-For, Forwarded or X-Real-IP and no proxy is trusted
 * to: it came through a proxy from anywhere), or any
 * with POSTHORN_METRICS_TOKEN as its Bearer token (`given`). Throws 401 (a token is set, not given or
 * wrong) or 403 (none is set).
 */
export function metricsAllowed(config: Config, request: Request, ip: string | null, given: string | null): void {
  // A request a proxy forwarded, from a proxy that is not trusted to name the client, is from anyone.
  const forwarded = config.trustedProxies.length === 0 && ["x-forwarded-for", "forwarded", "x-real-ip"].some((h) => request.headers.has(h));
  if (ip === null || (!forwarded && inNetworks(ip, INTERNAL))) return;
  if (config.metricsToken === null) throw new ForbiddenError("/metrics answers loopback and private networks only; set POSTHORN_METRICS_TOKEN to scrape from elsewhere.");
  if (given === null || !digestsEqual(sha256Hex(given), sha256Hex(config.metricsToken))) throw new UnauthenticatedError("/metrics needs the POSTHORN_METRICS_TOKEN as a Bearer token.");
}

/**
 * Prometheus text exposition of queue depths, message counts and commit batching. Every sample
 * carries a `node` label (POSTHORN_NODE_NAME): nodes on one database report the same queues and
 * messages, told apart by it.
 */
export async function metricsText(deps: Deps): Promise<string> {
  const lines: string[] = [];
  const node = deps.config.nodeName;
  const metric = (type: "gauge" | "counter") => (name: string, help: string, samples: [Record<string, string>, number][]) => {
    lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`);
    for (const [labels, value] of samples) {
      const l = Object.entries({ node, ...labels }).map(([k, v]) => `${k}="${v.replace(/["\\\n]/g, "_")}"`).join(",");
      lines.push(`${name}${l ? `{${l}}` : ""} ${value}`);
    }
  };
  const gauge = metric("gauge");
  const counter = metric("counter");
  gauge("posthorn_node_info", "This node and its database engine", [[{ engine: deps.config.databaseUrl ? "postgres" : "sqlite" }, 1]]);
  const queues = await deps.store.read.jobs.countsByQueue();
  gauge("posthorn_jobs_pending", "Jobs waiting or running, per queue", queues.map((q) => [{ queue: q.queue }, q.pending]));
  gauge("posthorn_jobs_dead", "Jobs that exhausted their attempts, per queue", queues.map((q) => [{ queue: q.queue }, q.dead]));
  const statuses = await deps.store.read.messages.countsByTypeAndStatus();
  gauge("posthorn_messages", "Messages by type and status", statuses.map((s) => [{ type: s.type, status: s.status }, s.n]));
  // The cluster's mail by route and outcome, from the statistics rollups (mail-counters.ts): every node reports the same figures.
  const mail = await mailCounterSamples(deps);
  counter("posthorn_outbound_recipients_total", "Outbound recipients by route, type and outcome since this node's first scrape, whole cluster (sent: first attempts; soft_bounced: each deferral)", mail.outbound);
  counter("posthorn_tracking_hits_total", "Opens and clicks by route, kind and verdict (human, privacy_proxy, machine) since this node's first scrape, whole cluster", mail.tracking);
  counter("posthorn_tracking_recipients_total", "Recipients' first open or click of each verdict, by route, since this node's first scrape, whole cluster", mail.trackingRecipients);
  counter("posthorn_inbound_messages_total", "Inbound messages by route and outcome (received: all processed; quarantined: held or rejected by the spam policy) since this node's first scrape, whole cluster", mail.inbound);
  gauge("posthorn_writer_commits", "Group commits since start", [[{}, deps.store.stats.commits]]);
  gauge("posthorn_writer_writes", "Writes carried by group commits since start", [[{}, deps.store.stats.writes]]);
  const inflow = inflowGateOf(deps);
  if (inflow) {
    counter("posthorn_smtp_inflow_held_total", "MAIL FROMs the MX held since start while inbound processing lagged (POSTHORN_SMTP_INFLOW_LAG_MS)", [[{}, inflow.heldTotal]]);
    gauge("posthorn_smtp_inflow_holding", "SMTP sessions held by flow control now", [[{}, inflow.holding]]);
    gauge("posthorn_smtp_inflow_lag_seconds", "How long the oldest message waiting for inbound processing had waited, last measured", [[{}, inflow.lag / 1000]]);
  }
  if (deps.config.rspamdUrl) {
    const rspamd = rspamdHealthOf(deps);
    counter("posthorn_rspamd_failures_total", "rspamd checks that failed since start", [[{}, rspamd.failures]]);
    gauge("posthorn_rspamd_up", "1 unless rspamd's last check failed", [[{}, rspamd.downForMs() === 0 ? 1 : 0]]);
  }
  return lines.join("\n") + "\n";
}
