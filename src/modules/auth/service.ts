import type { Deps } from "../../context.ts";
import { stmt } from "../../db/statements.ts";
import { UnauthenticatedError } from "../../errors.ts";
import { digestsEqual, sha256Hex } from "../../ids.ts";

export interface TeamPrincipal {
  kind: "team";
  teamId: string;
}
export interface ProjectPrincipal {
  kind: "project";
  teamId: string;
  projectId: string;
  smtpEnabled: boolean;
}

/** Last-used stamps are written at most this often per token, to keep sends write-light. */
const TOUCH_INTERVAL_MS = 60_000;

/**
 * Looks tokens up by their SHA-256 (tokens are never stored) and re-checks the stored digest in
 * constant time. Throws UnauthenticatedError for anything else.
 */
export class TokenAuthenticator {
  private readonly touched = new Map<string, number>();

  constructor(private readonly deps: Deps) {}

  team(token: string | null | undefined, ip: string | null): TeamPrincipal {
    const hash = this.digest(token, "ph_team_");
    const row = stmt<{ id: string; token_hash: string }, [string]>(this.deps.sqlite, "SELECT id, token_hash FROM teams WHERE token_hash = ?").get(hash);
    if (!row || !digestsEqual(row.token_hash, hash)) throw new UnauthenticatedError();
    this.touch("teams", row.id, ip);
    return { kind: "team", teamId: row.id };
  }

  project(token: string | null | undefined, ip: string | null): ProjectPrincipal {
    const hash = this.digest(token, "ph_");
    const row = stmt<{ id: string; team_id: string; token_hash: string; smtp_enabled: number }, [string]>(this.deps.sqlite, "SELECT id, team_id, token_hash, smtp_enabled FROM projects WHERE token_hash = ?")
      .get(hash);
    if (!row || !digestsEqual(row.token_hash, hash)) throw new UnauthenticatedError();
    this.touch("projects", row.id, ip);
    return { kind: "project", teamId: row.team_id, projectId: row.id, smtpEnabled: row.smtp_enabled === 1 };
  }

  /** Forget the last-used throttle for an id (after rotation, so the new token is stamped). */
  forget(id: string): void {
    this.touched.delete(id);
  }

  private digest(token: string | null | undefined, prefix: string): string {
    // Team tokens also start with "ph_", so the kinds are told apart by the longer prefix.
    if (!token || token.length > 200 || !token.startsWith(prefix)) throw new UnauthenticatedError();
    if (prefix === "ph_" && token.startsWith("ph_team_")) throw new UnauthenticatedError();
    return sha256Hex(token);
  }

  private touch(table: "teams" | "projects", id: string, ip: string | null): void {
    const now = Date.now();
    const last = this.touched.get(id);
    if (last !== undefined && now - last < TOUCH_INTERVAL_MS) return;
    this.touched.set(id, now);
    // Outside the request's unit of work: a use is a use whatever the answer, and a slow handler must not hold this write.
    const writer = this.deps.writer;
    writer
      .detached(() =>
        writer.write(() => this.deps.sqlite.query(`UPDATE ${table} SET token_last_used_at = ?, token_last_used_ip = ? WHERE id = ?`).run(now, ip, id)),
      )
      .catch((err: unknown) => this.deps.log.warn("token last-used update failed", { error: String(err) }));
  }
}
