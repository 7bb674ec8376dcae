/**
 * Report forwarding (Lettermint's report-forwarding of a project): a report received for a domain
 * is also sent, as received (the whole message attached as message/rfc822), to the verified
 * destination of every project the domain is attached to. Sent through Posthorn itself, from
 * reports@ the project's oldest verified sending domain. Only reports that were read and stored
 * are forwarded (a refused one is not). After the 250, not in its commit: a crash in between
 * loses that forward, never the report.
 */
import type { Deps } from "../context.ts";
import { acceptMessages } from "../sending/acceptance.ts";
import type { ReadReport } from "./ingest.ts";

export async function forwardReports(deps: Pick<Deps, "store" | "config" | "log">, received: readonly ReadReport[], raw: Buffer): Promise<number> {
  let sent = 0;
  const done = new Set<string>();
  for (const r of received) {
    for (const f of await deps.store.read.reportForwarding.verifiedForDomain(r.to.domainId)) {
      if (done.has(f.project_id)) continue;
      done.add(f.project_id);
      const sender = await deps.store.read.reportForwarding.senderDomain(f.project_id);
      const domain = (await deps.store.read.deliverabilityReports.domainOfReport(r.to.domainId))?.domain ?? "";
      if (!sender) {
        deps.log.warn("report not forwarded: the project has no verified sending domain", { project_id: f.project_id, domain });
        continue;
      }
      const what = r.parsed.kind === "dmarc" ? "DMARC aggregate report" : "TLS report";
      const org = r.parsed.report.orgName;
      try {
        await acceptMessages(deps, { teamId: f.team_id, projectId: f.project_id }, [
          {
            from: `reports@${sender}`,
            to: [f.destination],
            subject: `${what} from ${org} for ${domain}`,
            text: `Posthorn received this ${what} from ${org} for ${domain}; it is attached as received.`,
            attachments: [{ filename: "report.eml", content: raw.toString("base64"), content_type: "message/rfc822" }],
          },
        ]);
        sent++;
      } catch (err) {
        deps.log.warn("report not forwarded", { project_id: f.project_id, domain, error: err instanceof Error ? err.message : String(err) });
      }
    }
  }
  return sent;
}
