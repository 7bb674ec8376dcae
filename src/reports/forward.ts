/**
 * Report forwarding (Lettermint's report-forwarding of a project): a report received for a domain
 * is also sent, as received (the whole message attached as message/rfc822), to the verified
 * destination of every project the domain is attached to; a complaint (ARF) about a message, to
 * the destination of the project that sent it. Sent through Posthorn itself, from
 * reports@ the project's oldest verified sending domain. Only reports that were read and stored
 * are forwarded (a refused one is not). After the 250, not in its commit: a crash in between
 * loses that forward, never the report.
 */
import type { Deps } from "../context.ts";
import { acceptMessages } from "../sending/acceptance.ts";
import type { ReadReport } from "./ingest.ts";

/** Sends `raw` to a project's destination, attached as received; false (logged) when it cannot. */
async function forwardOne(
  deps: Pick<Deps, "store" | "config" | "log">,
  f: { project_id: string; team_id: string; destination: string },
  raw: Buffer,
  subject: string,
  text: string,
): Promise<boolean> {
  const sender = await deps.store.read.reportForwarding.senderDomain(f.project_id);
  if (!sender) {
    deps.log.warn("report not forwarded: the project has no verified sending domain", { project_id: f.project_id });
    return false;
  }
  try {
    await acceptMessages(deps, { teamId: f.team_id, projectId: f.project_id }, [
      { from: `reports@${sender}`, to: [f.destination], subject, text, attachments: [{ filename: "report.eml", content: raw.toString("base64"), content_type: "message/rfc822" }] },
    ]);
    return true;
  } catch (err) {
    deps.log.warn("report not forwarded", { project_id: f.project_id, error: err instanceof Error ? err.message : String(err) });
    return false;
  }
}

/** A complaint (ARF) applied to the recipients `recipientIds`: forwarded once per project that has a verified destination. */
export async function forwardComplaint(deps: Pick<Deps, "store" | "config" | "log">, recipientIds: readonly string[], raw: Buffer): Promise<number> {
  let sent = 0;
  const done = new Set<string>();
  for (const id of recipientIds) {
    const f = await deps.store.read.reportForwarding.forwardingOfRecipient(id);
    if (!f || done.has(f.project_id)) continue;
    done.add(f.project_id);
    const about = f.domain ? ` for ${f.domain}` : "";
    if (await forwardOne(deps, f, raw, `Complaint report${about}`, `Posthorn received this complaint (ARF) about a message of the project${about}; it is attached as received.`)) sent++;
  }
  return sent;
}

export async function forwardReports(deps: Pick<Deps, "store" | "config" | "log">, received: readonly ReadReport[], raw: Buffer): Promise<number> {
  let sent = 0;
  const done = new Set<string>();
  for (const r of received) {
    for (const f of await deps.store.read.reportForwarding.verifiedForDomain(r.to.domainId)) {
      if (done.has(f.project_id)) continue;
      done.add(f.project_id);
      const domain = (await deps.store.read.deliverabilityReports.domainOfReport(r.to.domainId))?.domain ?? "";
      const what = r.parsed.kind === "dmarc" ? "DMARC aggregate report" : "TLS report";
      const org = r.parsed.report.orgName;
      if (await forwardOne(deps, f, raw, `${what} from ${org} for ${domain}`, `Posthorn received this ${what} from ${org} for ${domain}; it is attached as received.`)) sent++;
    }
  }
  return sent;
}
