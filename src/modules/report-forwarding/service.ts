import { randomInt } from "node:crypto";
import type { Deps } from "../../context.ts";
import type { ReportForwardingRow } from "../../db/report-forwarding.ts";
import { NotFoundError, RateLimitedError, ValidationError } from "../../errors.ts";
import { iso, isUuid } from "../../ids.ts";
import { parseEmail } from "../../mail/address.ts";
import { serverSecretOf, signValue, verifySignedValue } from "../../secrets.ts";
import { acceptMessages } from "../../sending/acceptance.ts";

/** How long a code is valid, how many wrong codes spend it, how soon another may be sent. */
export const CODE_TTL_MS = 24 * 3600 * 1000;
export const MAX_FAILED_ATTEMPTS = 5;
export const RESEND_AFTER_MS = 60_000;
const PURPOSE = "report-forwarding-code";

type Resource = { destination: string | null; verified: boolean; verified_at: string | null };

const resource = (r: ReportForwardingRow | null): Resource =>
  r ? { destination: r.destination, verified: r.verified_at !== null, verified_at: iso(r.verified_at) } : { destination: null, verified: false, verified_at: null };

async function projectOf(deps: Pick<Deps, "store">, teamId: string, projectId: string) {
  const p = isUuid(projectId) ? await deps.store.read.projects.findOfTeam(projectId, teamId) : null;
  if (!p) throw new NotFoundError("Project");
  return p;
}

/** Six digits. */
const newCode = () => String(randomInt(0, 1_000_000)).padStart(6, "0");
const codeHash = (secret: string, projectId: string, code: string) => signValue(secret, PURPOSE, `${projectId}:${code}`, 32);

/**
 * Mails the code to the destination through Posthorn, from reports@ the project's verified domain.
 * The team must not learn the code (it would verify a destination that never agreed): the subject
 * does not carry it, and the message is sealed, so its source, text and html are a 410 to the team
 * (its row, history and webhooks carry the subject, never the body).
 */
async function sendCode(deps: Pick<Deps, "store" | "config">, teamId: string, projectId: string, destination: string, code: string, sender: string): Promise<void> {
  await acceptMessages(deps, { teamId, projectId }, [
    {
      from: `reports@${sender}`,
      to: [destination],
      subject: `Confirm report forwarding to ${destination}`,
      text: `Give this code to confirm that DMARC and TLS reports of the project's domains may be forwarded to ${destination}:\n\n    ${code}\n\nIt is valid for 24 hours. If you did not ask for this, ignore this mail: nothing is forwarded until the code is given.`,
    },
  ], { sealed: true });
}

async function senderOf(deps: Pick<Deps, "store">, projectId: string): Promise<string> {
  const sender = await deps.store.read.reportForwarding.senderDomain(projectId);
  if (!sender) throw ValidationError.field("destination", "The project has no verified sending domain to send the verification code and the reports from; verify one first.");
  return sender;
}

export async function getForwarding(deps: Pick<Deps, "store">, teamId: string, projectId: string): Promise<Resource> {
  const p = await projectOf(deps, teamId, projectId);
  return resource(await deps.store.read.reportForwarding.find(p.id));
}

/**
 * Sets the destination: a new one is unverified until the code mailed to it comes back; the same
 * destination again changes nothing (a verified one stays verified).
 */
export async function setForwarding(deps: Pick<Deps, "store" | "config">, teamId: string, projectId: string, input: { destination: string }): Promise<Resource> {
  const p = await projectOf(deps, teamId, projectId);
  const parsed = parseEmail(input.destination.trim());
  if (!parsed) throw ValidationError.field("destination", "The destination must be a valid email address.");
  const destination = parsed.email;
  const inbound = deps.config.inboundDomain.toLowerCase();
  if (parsed.domain === inbound || parsed.domain.endsWith(`.${inbound}`)) {
    throw ValidationError.field("destination", `The destination must not be an address at ${inbound}, where reports arrive: they would loop.`);
  }
  const current = await deps.store.read.reportForwarding.find(p.id);
  if (current && current.destination === destination) return resource(current);
  const sender = await senderOf(deps, p.id);
  const code = newCode();
  const secret = await serverSecretOf(deps.store);
  const now = Date.now();
  await deps.store.write((tx) =>
    tx.reportForwarding.set({ project_id: p.id, team_id: teamId, destination, code_hash: codeHash(secret, p.id, code), code_expires_at: now + CODE_TTL_MS, now }),
  );
  await sendCode(deps, teamId, p.id, destination, code, sender);
  return resource(await deps.store.read.reportForwarding.find(p.id));
}

export async function verifyForwarding(deps: Pick<Deps, "store">, teamId: string, projectId: string, input: { code: string }): Promise<Resource> {
  const p = await projectOf(deps, teamId, projectId);
  const row = await deps.store.read.reportForwarding.find(p.id);
  if (!row) throw ValidationError.field("code", "No report forwarding destination is set; set one first (PUT).");
  if (row.verified_at !== null) return resource(row);
  const code = input.code.trim().toUpperCase();
  // The attempt is taken (checked and counted in one statement) before the code is looked at, and
  // outside the request's unit of work, which the 422 rolls back: of guesses sent at once, at most
  // MAX_FAILED_ATTEMPTS are evaluated. The right code resets the count (markVerified).
  const now = Date.now();
  const spent = await deps.store.detached(() => deps.store.write((tx) => tx.reportForwarding.spendAttempt(p.id, MAX_FAILED_ATTEMPTS, now)));
  if (spent === null) throw ValidationError.field("code", "The code has expired or was tried too often; request a new one (resend-code).");
  const secret = await serverSecretOf(deps.store);
  if (!/^[0-9A-Z]{4,16}$/.test(code) || !verifySignedValue(secret, PURPOSE, `${p.id}:${code}`, spent.code_hash)) {
    const left = Math.max(0, MAX_FAILED_ATTEMPTS - spent.failed_attempts);
    throw ValidationError.field("code", left > 0 ? `The code is not valid (${left} attempt${left === 1 ? "" : "s"} left).` : "The code is not valid, and was tried too often; request a new one (resend-code).");
  }
  await deps.store.write((tx) => tx.reportForwarding.markVerified(p.id, now));
  return resource(await deps.store.read.reportForwarding.find(p.id));
}

export async function resendForwardingCode(deps: Pick<Deps, "store" | "config">, teamId: string, projectId: string): Promise<Resource> {
  const p = await projectOf(deps, teamId, projectId);
  const row = await deps.store.read.reportForwarding.find(p.id);
  if (!row) throw ValidationError.field("destination", "No report forwarding destination is set; set one first (PUT).");
  if (row.verified_at !== null) throw ValidationError.field("destination", "The destination is verified already.");
  const now = Date.now();
  if (row.code_sent_at !== null && now - row.code_sent_at < RESEND_AFTER_MS) throw new RateLimitedError(Math.ceil((row.code_sent_at + RESEND_AFTER_MS - now) / 1000));
  const sender = await senderOf(deps, p.id);
  const code = newCode();
  const secret = await serverSecretOf(deps.store);
  await deps.store.write((tx) => tx.reportForwarding.newCode(p.id, codeHash(secret, p.id, code), now + CODE_TTL_MS, now));
  await sendCode(deps, teamId, p.id, row.destination, code, sender);
  return resource(await deps.store.read.reportForwarding.find(p.id));
}

export async function deleteForwarding(deps: Pick<Deps, "store">, teamId: string, projectId: string): Promise<void> {
  const p = await projectOf(deps, teamId, projectId);
  await deps.store.write((tx) => tx.reportForwarding.delete(p.id));
}
