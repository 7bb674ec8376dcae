/**
 * One-click unsubscribe (RFC 8058) for mail sent through broadcast routes: the List-Unsubscribe
 * URL carries the message id and a keyed signature. A POST adds a route-scoped suppression
 * (reason unsubscribe) for the message's recipients and records "unsubscribed" on those the mail
 * reached; a GET only shows a confirmation form, because link scanners follow GET links.
 */
import type { Deps } from "../../context.ts";
import type { Repositories } from "../../db/store.ts";
import { NotFoundError } from "../../errors.ts";
import { changeRecipientStatus, suppressionScopeKey } from "../../events/message-status.ts";
import { newId } from "../../ids.ts";
import { serverSecretIn, serverSecretOf, verifySignedValue } from "../../secrets.ts";

type Target = { messageId: string; teamId: string; routeId: string; routeName: string; recipients: { id: string; email: string; status: string }[] };

const REACHED = new Set(["delivered", "opened", "clicked"]);

/** The message a token stands for, read through `repos`, or NotFoundError. The secret is read only for a well-formed token. */
async function targetOf(repos: Repositories, secret: () => Promise<string>, token: string): Promise<Target> {
  const m = /^([0-9a-f-]{36})\.([0-9a-f]{20})$/.exec(token);
  if (!m || !verifySignedValue(await secret(), "unsubscribe", m[1]!, m[2]!)) throw new NotFoundError("Unsubscribe link");
  const row = await repos.messages.unsubscribeTarget(m[1]!);
  if (!row || !row.route_id) throw new NotFoundError("Unsubscribe link");
  const recipients = await repos.messages.recipientsOf(m[1]!);
  return { messageId: m[1]!, teamId: row.team_id, routeId: row.route_id, routeName: row.route_name ?? "", recipients };
}

/** The message an unsubscribe token stands for, or NotFoundError. */
export function unsubscribeTarget(deps: Pick<Deps, "store">, token: string): Promise<Target> {
  return targetOf(deps.store.read, () => serverSecretOf(deps.store), token);
}

/** Suppresses the message's recipients for its route. Returns the addresses. */
export async function unsubscribe(deps: Pick<Deps, "store">, token: string): Promise<string[]> {
  return deps.store.write(async (tx) => {
    const target = await targetOf(tx, () => serverSecretIn(tx), token);
    const now = Date.now();
    const scopeKey = suppressionScopeKey({ scope: "route", routeId: target.routeId });
    for (const r of target.recipients) {
      await tx.suppressions.add({
        id: newId(),
        team_id: target.teamId,
        scope: "route",
        project_id: null,
        route_id: target.routeId,
        scope_key: scopeKey,
        email: r.email.toLowerCase(),
        reason: "unsubscribe",
        created_at: now,
      });
      if (REACHED.has(r.status)) await changeRecipientStatus(tx, { recipientId: r.id, status: "unsubscribed", details: { via: "list-unsubscribe" } }, now);
    }
    return target.recipients.map((r) => r.email);
  });
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export function confirmationPage(target: Target, token: string): string {
  const who = target.recipients.map((r) => escapeHtml(r.email)).join(", ");
  return `<!doctype html><html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>Unsubscribe</title></head>
<body style="font-family:sans-serif;max-width:32em;margin:4em auto"><h1>Unsubscribe</h1>
<p>Stop receiving <strong>${escapeHtml(target.routeName)}</strong> mail at ${who}?</p>
<form method="post" action="/v1/unsubscribe/${escapeHtml(token)}"><input type="hidden" name="List-Unsubscribe" value="One-Click"><button type="submit">Unsubscribe</button></form></body></html>`;
}

export const donePage = (emails: string[]) =>
  `<!doctype html><html><head><meta charset="utf-8"><title>Unsubscribed</title></head><body style="font-family:sans-serif;max-width:32em;margin:4em auto"><h1>You are unsubscribed</h1><p>${emails.map(escapeHtml).join(", ")} will not receive this mail any more.</p></body></html>`;
