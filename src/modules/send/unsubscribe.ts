/**
 * One-click unsubscribe (RFC 8058) for mail sent through broadcast routes. Each recipient's copy
 * carries its own link (src/auth/unsubscribe-tokens.ts), which names that recipient and no other:
 * a POST adds a route-scoped suppression (reason unsubscribe) for that one address and records
 * "unsubscribed" on it if the mail reached it; a GET only shows a confirmation form naming that
 * address, because link scanners follow GET links.
 *
 * Mail sent before carries one message-wide link for all its recipients (until December 2026 it showed
 * every address, Bcc included, and unsubscribed them all). Such a link still works, safely:
 *  - on a message with one recipient it names that recipient exactly, as a new link does;
 *  - on a message with several, the page lists no address and asks which one to unsubscribe
 *    (`?email=`, a GET that changes nothing, then a confirmation); a POST with `?email=`
 *    unsubscribes that address only if it is one of the message's recipients, and answers the
 *    same page either way (so it tells no one who else received the mail); a one-click POST
 *    without an address changes nothing (422 with the form). The body is never read.
 */
import type { Deps } from "../../context.ts";
import { looksLikeUnsubscribeToken, readUnsubscribeToken } from "../../auth/unsubscribe-tokens.ts";
import type { Repositories } from "../../db/store.ts";
import { NotFoundError } from "../../errors.ts";
import { changeRecipientStatus, suppressionScopeKey } from "../../events/message-status.ts";
import { addSuppressionRow } from "../../events/suppression-events.ts";
import { newId } from "../../ids.ts";
import { serverSecretIn, serverSecretOf } from "../../secrets.ts";

type Recipient = { id: string; email: string; status: string };
type Scope = { teamId: string; routeId: string; routeName: string; messageId: string };

/** One recipient (a recipient's link, or a message-wide link of a message with one recipient), or a message-wide link of several. */
export type Target = (Scope & { kind: "recipient"; recipient: Recipient }) | (Scope & { kind: "message"; recipients: Recipient[] });

const REACHED = new Set(["delivered", "opened", "clicked"]);
const notFound = () => new NotFoundError("Unsubscribe link");

/** What a token stands for, read through `repos`, or NotFoundError. The secret is read only for a well-formed token. */
async function targetOf(repos: Repositories, secret: () => Promise<string>, token: string): Promise<Target> {
  if (!looksLikeUnsubscribeToken(token)) throw notFound();
  const data = readUnsubscribeToken(await secret(), token);
  if (!data) throw notFound();
  if (data.kind === "recipient") {
    const row = await repos.messages.unsubscribeRecipient(data.recipientId);
    if (!row || !row.route_id) throw notFound();
    return { kind: "recipient", teamId: row.team_id, routeId: row.route_id, routeName: row.route_name ?? "", messageId: row.message_id, recipient: { id: row.id, email: row.email, status: row.status } };
  }
  const row = await repos.messages.unsubscribeTarget(data.messageId);
  if (!row || !row.route_id) throw notFound();
  const recipients = await repos.messages.recipientsOf(data.messageId);
  const scope = { teamId: row.team_id, routeId: row.route_id, routeName: row.route_name ?? "", messageId: data.messageId };
  if (recipients.length === 1) return { ...scope, kind: "recipient", recipient: recipients[0]! };
  return { ...scope, kind: "message", recipients };
}

/** What an unsubscribe token stands for, or NotFoundError. */
export function unsubscribeTarget(deps: Pick<Deps, "store">, token: string): Promise<Target> {
  return targetOf(deps.store.read, () => serverSecretOf(deps.store), token);
}

/** What a POST did: the address unsubscribed (or, for a message-wide link, the address asked for), or that an address is needed. */
export type UnsubscribeOutcome = { done: true; email: string; routeName: string; asked: boolean } | { done: false; target: Target };

/**
 * Unsubscribes the one recipient the token names. For a message-wide link of several recipients,
 * `email` says which: it is unsubscribed if it is one of them (the outcome is the same either way);
 * without it nothing changes.
 */
export async function unsubscribe(deps: Pick<Deps, "store">, token: string, email: string | null): Promise<UnsubscribeOutcome> {
  return deps.store.write(async (tx) => {
    const target = await targetOf(tx, () => serverSecretIn(tx), token);
    const now = Date.now();
    if (target.kind === "recipient") {
      await suppress(tx, target, target.recipient, now);
      return { done: true, email: target.recipient.email, routeName: target.routeName, asked: false };
    }
    const wanted = email?.trim().toLowerCase() ?? "";
    if (!wanted) return { done: false, target };
    const recipient = target.recipients.find((r) => r.email.toLowerCase() === wanted);
    if (recipient) await suppress(tx, target, recipient, now);
    return { done: true, email: wanted, routeName: target.routeName, asked: true };
  });
}

async function suppress(tx: Repositories, scope: Scope, r: Recipient, now: number): Promise<void> {
  await addSuppressionRow(tx, {
    id: newId(),
    team_id: scope.teamId,
    scope: "route",
    project_id: null,
    route_id: scope.routeId,
    scope_key: suppressionScopeKey({ scope: "route", routeId: scope.routeId }),
    type: "email",
    email: r.email.toLowerCase(),
    reason: "unsubscribe",
    source_message_id: scope.messageId,
    created_at: now,
  }, now);
  if (REACHED.has(r.status)) await changeRecipientStatus(tx, { recipientId: r.id, status: "unsubscribed", details: { via: "list-unsubscribe" } }, now);
}

/**
 * The headers of every unsubscribe page: no framing (clickjacking the one-click form), no
 * script, nothing loaded, the form posting only here, the token in the URL never sent on as a
 * Referer, and no caching.
 */
export const PAGE_HEADERS: Readonly<Record<string, string>> = {
  "content-type": "text/html; charset=utf-8",
  "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
  "x-frame-options": "DENY",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "cache-control": "no-store",
};

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const page = (title: string, body: string) =>
  `<!doctype html><html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${title}</title></head>
<body style="font-family:sans-serif;max-width:32em;margin:4em auto"><h1>${title}</h1>
${body}</body></html>`;

/**
 * The GET page (and the answer to a POST that lacked the address): a form naming one address at
 * most. A message-wide link of several recipients first asks for the address (a GET form, which
 * changes nothing), then asks to confirm it: the address shown is the one typed, whoever received the mail.
 */
export function confirmationPage(target: Target, token: string, email: string | null): string {
  const action = `/v1/unsubscribe/${escapeHtml(token)}`;
  const route = `<strong>${escapeHtml(target.routeName)}</strong>`;
  const confirm = (who: string, query: string) =>
    page(
      "Unsubscribe",
      `<p>Stop receiving ${route} mail at ${escapeHtml(who)}?</p>
<form method="post" action="${action}${query}"><input type="hidden" name="List-Unsubscribe" value="One-Click"><button type="submit">Unsubscribe</button></form>`,
    );
  if (target.kind === "recipient") return confirm(target.recipient.email, "");
  const typed = email?.trim() ?? "";
  if (typed) return confirm(typed, `?email=${escapeHtml(encodeURIComponent(typed))}`);
  return page(
    "Unsubscribe",
    `<p>This link was sent to several people. Enter the address at which you want to stop receiving ${route} mail.</p>
<form method="get" action="${action}"><input type="email" name="email" required autocomplete="email" aria-label="Email address"> <button type="submit">Continue</button></form>`,
  );
}

export function donePage(outcome: { email: string; routeName: string; asked: boolean }): string {
  const who = escapeHtml(outcome.email);
  const route = `<strong>${escapeHtml(outcome.routeName)}</strong>`;
  return page(
    "Unsubscribed",
    outcome.asked
      ? `<p>If this message was sent to ${who}, that address will not receive ${route} mail any more.</p>`
      : `<p>${who} will not receive ${route} mail any more.</p>`,
  );
}
