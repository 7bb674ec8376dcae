/**
 * Accepting a message on the MX: everything that must be durable before the 250 goes into one
 * Writer commit — per inbound route, the message row (status "pending"), its raw MIME and an
 * "inbound" job; per bounce address, the report's effect on the outbound recipient. Parsing,
 * SPF/DKIM/DMARC/ARC checks, spam scoring and the webhook event happen in the job (DNS lookups
 * must not hold the SMTP session); reports are classified before the commit (local and quick).
 */
import type { Deps } from "../context.ts";
import { newId } from "../ids.ts";
import type { InboundTarget } from "./rcpt-resolver.ts";
import { analyzeReport, applyReport, type ReportOutcome } from "./reports.ts";
import { receivedHeader } from "./listener.ts";
import { clip, FIELD_BOUNDS } from "../untrusted/bounds.ts";
import { readReports, storeReport, type ReportRecipient } from "../reports/ingest.ts";
import { forwardComplaint, forwardReports } from "../reports/forward.ts";

export const INBOUND_QUEUE = "inbound";

/** The "inbound" job: finish one accepted message for one route. */
export interface InboundJob {
  messageId: string;
  /** Envelope recipients of this route, as given (domain lower-cased). */
  recipients: string[];
  /** The subaddress of the first recipient ("support+1234@…" → "1234"). */
  subaddress: string | null;
  mailFrom: string;
  ip: string;
  helo: string;
  secure: boolean;
  /** Recipients of the whole SMTP transaction (all routes and bounce addresses). */
  envelopeRecipientCount: number;
  /** Size of the stored source, so the job can wait for room before reading it (absent in older jobs). */
  bytes?: number;
  /** A quarantined message released through the API: processed whatever its spam score. */
  release?: boolean;
}

export interface AcceptedEnvelope {
  mailFrom: string;
  ip: string;
  helo: string;
  secure: boolean;
  targets: InboundTarget[];
}

export interface AcceptResult {
  /** Id of the first stored message, for the 250 reply; else a fresh queue id. */
  queueId: string;
  messageIds: string[];
  reports: ReportOutcome[];
}

type RouteGroup = { routeId: string; teamId: string; projectId: string; recipients: string[]; subaddress: string | null };

/** Stores what arrived in one SMTP transaction; resolves after the commit, so a 250 may follow. */
export async function acceptInbound(deps: Deps, env: AcceptedEnvelope, raw: Buffer, now = Date.now()): Promise<AcceptResult> {
  const groups = new Map<string, RouteGroup>();
  const bounces: string[] = [];
  const reportTargets: ReportRecipient[] = [];
  for (const t of env.targets) {
    if (t.kind === "report") {
      reportTargets.push(t);
      continue;
    }
    if (t.kind === "bounce") {
      if (!bounces.includes(t.recipientId)) bounces.push(t.recipientId);
      continue;
    }
    const g = groups.get(t.routeId);
    if (g) g.recipients.push(t.address);
    else groups.set(t.routeId, { routeId: t.routeId, teamId: t.teamId, projectId: t.projectId, recipients: [t.address], subaddress: t.subaddress });
  }

  const analysis = bounces.length > 0 ? await analyzeReport(raw, env.mailFrom || null) : null;
  // DMARC and TLS reports to a domain's report address: read (bounded) before the commit.
  const received =
    reportTargets.length > 0
      ? await readReports(reportTargets, raw, async (id) => (await deps.store.read.deliverabilityReports.domainOfReport(id))?.domain ?? null, deps.log)
      : [];
  const stored = [...groups.values()].map((g) => {
    const id = newId();
    const trace = receivedHeader({
      helo: env.helo,
      ip: env.ip,
      hostname: deps.config.hostname,
      secure: env.secure,
      id,
      recipient: g.recipients.length === 1 ? g.recipients[0]! : null,
      date: new Date(now),
    });
    return { id, group: g, raw: Buffer.concat([Buffer.from(trace, "latin1"), raw]) };
  });

  const fresh: typeof received = [];
  const reports = await deps.store.write(async (tx) => {
    for (const s of stored) {
      await tx.messages.insertInbound({
        id: s.id,
        team_id: s.group.teamId,
        project_id: s.group.projectId,
        route_id: s.group.routeId,
        // Until the job reads the From header; the envelope's address is bounded as that one is.
        from_email: clip(env.mailFrom, FIELD_BOUNDS.address),
        raw: s.raw,
        created_at: now,
      });
      const job: InboundJob = {
        messageId: s.id,
        recipients: s.group.recipients,
        subaddress: s.group.subaddress,
        mailFrom: env.mailFrom,
        ip: env.ip,
        helo: env.helo,
        secure: env.secure,
        envelopeRecipientCount: env.targets.length,
        bytes: s.raw.length,
      };
      await tx.jobs.enqueue(INBOUND_QUEUE, job, { maxAttempts: 10 });
    }
    const outcomes: ReportOutcome[] = [];
    if (analysis) for (const id of bounces) outcomes.push(await applyReport(tx, id, analysis, now));
    for (const r of received) if (await storeReport(tx, r, now)) fresh.push(r);
    return outcomes;
  });
  // Reports also go to the projects' verified forwarding destinations (after the commit, not awaited by the 250).
  if (fresh.length > 0) void forwardReports(deps, fresh, raw).catch((err: unknown) => deps.log.warn("report forwarding failed", { error: String(err) }));
  // A complaint applied to a recipient (not seen before) also goes to the sending project's destination.
  const complained = analysis?.kind === "arf" ? bounces.filter((_, i) => reports[i] !== "duplicate" && reports[i] !== "recipient_gone") : [];
  if (complained.length > 0) void forwardComplaint(deps, complained, raw).catch((err: unknown) => deps.log.warn("complaint forwarding failed", { error: String(err) }));
  return { queueId: stored[0]?.id ?? newId(), messageIds: stored.map((s) => s.id), reports };
}
