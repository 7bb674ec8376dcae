import type { Database } from "bun:sqlite";
import { newId, newToken, sha256Hex, TOKEN_PREFIX } from "../../ids.ts";

export interface CreatedTeam {
  teamId: string;
  teamToken: string;
  ownerUserId: string;
  ownerMemberId: string;
}

/** Creates a team with its owner. Synchronous: run inside a Writer transaction. */
export function createTeam(sqlite: Database, input: { name: string; ownerName?: string; ownerEmail?: string }, now = Date.now()): CreatedTeam {
  const teamId = newId();
  const teamToken = newToken(TOKEN_PREFIX.team);
  sqlite
    .query(
      `INSERT INTO teams (id, name, plan, tier, features, addons, token_hash, token_generated_at, verified_at, created_at, updated_at)
       VALUES (?, ?, 'free', 0, '[]', '[]', ?, ?, ?, ?, ?)`,
    )
    .run(teamId, input.name, sha256Hex(teamToken), now, now, now, now);
  const ownerUserId = newId();
  const email = (input.ownerEmail ?? `owner+${teamId.slice(-12)}@localhost`).toLowerCase();
  sqlite.query("INSERT INTO users (id, name, email, avatar, created_at) VALUES (?, ?, ?, NULL, ?)").run(ownerUserId, input.ownerName ?? "Owner", email, now);
  const ownerMemberId = newId();
  sqlite
    .query("INSERT INTO team_members (id, team_id, user_id, role, joined_at, created_at) VALUES (?, ?, ?, 'owner', ?, ?)")
    .run(ownerMemberId, teamId, ownerUserId, now, now);
  return { teamId, teamToken, ownerUserId, ownerMemberId };
}

export const countTeams = (sqlite: Database): number => sqlite.query<{ n: number }, []>("SELECT count(*) AS n FROM teams").get()!.n;
