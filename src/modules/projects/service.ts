import type { Database } from "bun:sqlite";
import { randomBytes } from "node:crypto";
import { newId, newToken, sha256Hex, TOKEN_PREFIX } from "../../ids.ts";

export type RouteType = "transactional" | "broadcast" | "inbound";

/** A fresh inbound address on the service's inbound domain. */
export const generateInboundAddress = (inboundDomain: string): string => `${randomBytes(16).toString("hex")}@${inboundDomain}`;

/** Inserts a route; inbound routes get a generated inbound address. Synchronous. */
export function insertRoute(
  sqlite: Database,
  r: { teamId: string; projectId: string; name: string; slug: string; routeType: RouteType; isDefault: boolean; inboundDomain: string },
  now = Date.now(),
): string {
  const id = newId();
  sqlite
    .query(
      `INSERT INTO routes (id, team_id, project_id, slug, name, route_type, is_default, inbound_address, inbound_spam_threshold, attachment_delivery, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'inline', ?, ?)`,
    )
    .run(
      id,
      r.teamId,
      r.projectId,
      r.slug,
      r.name,
      r.routeType,
      r.isDefault ? 1 : 0,
      r.routeType === "inbound" ? generateInboundAddress(r.inboundDomain) : null,
      r.routeType === "inbound" ? 5 : null,
      now,
      now,
    );
  return id;
}

export const DEFAULT_ROUTES: { slug: string; name: string; routeType: RouteType }[] = [
  { slug: "transactional", name: "Transactional", routeType: "transactional" },
  { slug: "broadcast", name: "Broadcast", routeType: "broadcast" },
  { slug: "inbound", name: "Inbound", routeType: "inbound" },
];

/**
 * Creates a project with its sending token and one default route of each type.
 * Returns the plaintext token, which is shown once. Synchronous: run inside a Writer transaction.
 */
export function createProject(
  sqlite: Database,
  input: { teamId: string; name: string; smtpEnabled?: boolean; inboundDomain: string },
  now = Date.now(),
): { projectId: string; projectToken: string; routeIds: Record<RouteType, string> } {
  const projectId = newId();
  const projectToken = newToken(TOKEN_PREFIX.project);
  sqlite
    .query(
      `INSERT INTO projects (id, team_id, name, smtp_enabled, token_hash, token_generated_at, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(projectId, input.teamId, input.name, input.smtpEnabled ? 1 : 0, sha256Hex(projectToken), now, now, now);
  const routeIds = {} as Record<RouteType, string>;
  for (const r of DEFAULT_ROUTES) {
    routeIds[r.routeType] = insertRoute(sqlite, { ...r, teamId: input.teamId, projectId, isDefault: true, inboundDomain: input.inboundDomain }, now);
  }
  return { projectId, projectToken, routeIds };
}

/** Replaces the project's sending token; the old one stops working at once. Returns the new one. */
export function rotateProjectToken(sqlite: Database, projectId: string, now = Date.now()): string {
  const token = newToken(TOKEN_PREFIX.project);
  sqlite
    .query("UPDATE projects SET token_hash = ?, token_generated_at = ?, token_last_used_at = NULL, token_last_used_ip = NULL, updated_at = ? WHERE id = ?")
    .run(sha256Hex(token), now, now, projectId);
  return token;
}
