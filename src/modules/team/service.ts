import type { Database } from "bun:sqlite";
import type { Deps } from "../../context.ts";
import { keysetPage } from "../../db/keyset.ts";
import { NotFoundError, ValidationError } from "../../errors.ts";
import { parsePage, parseSort } from "../../http/pagination.ts";
import { iso, newId, newToken, sha256Hex, TOKEN_PREFIX } from "../../ids.ts";
import { serializeMember, type MemberRow, type TeamData } from "./model.ts";

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

type TeamRow = {
  id: string;
  name: string;
  plan: string;
  tier: number;
  verified_at: number | null;
  created_at: number;
  features: string;
  addons: string;
  domains_count: number;
  projects_count: number;
  members_count: number;
};

/** TeamData of the spec, with its counts. */
export function getTeamData(sqlite: Database, teamId: string): TeamData {
  const r = sqlite
    .query<TeamRow, [string]>(
      `SELECT t.id, t.name, t.plan, t.tier, t.verified_at, t.created_at, t.features, t.addons,
         (SELECT count(*) FROM domains WHERE team_id = t.id) AS domains_count,
         (SELECT count(*) FROM projects WHERE team_id = t.id) AS projects_count,
         (SELECT count(*) FROM team_members WHERE team_id = t.id) AS members_count
       FROM teams t WHERE t.id = ?`,
    )
    .get(teamId);
  if (!r) throw new NotFoundError("Team");
  return {
    id: r.id,
    name: r.name,
    plan: r.plan,
    tier: r.tier,
    verified_at: iso(r.verified_at),
    created_at: iso(r.created_at)!,
    features: JSON.parse(r.features) as string[],
    addons: JSON.parse(r.addons) as { type: string; expires_at: string }[],
    domains_count: r.domains_count,
    projects_count: r.projects_count,
    members_count: r.members_count,
  };
}

/** Renames the team (the only editable property); a null or absent name changes nothing. */
export async function updateTeam(deps: Pick<Deps, "sqlite" | "writer">, teamId: string, input: { name?: string | null }): Promise<TeamData> {
  if (input.name !== undefined && input.name !== null) {
    const name = input.name.trim();
    if (!name) throw ValidationError.field("name", "The name field must not be blank.");
    await deps.writer.write(() => deps.sqlite.query("UPDATE teams SET name = ?, updated_at = ? WHERE id = ?").run(name, Date.now(), teamId));
  }
  return getTeamData(deps.sqlite, teamId);
}

const MEMBER_SORT = { created_at: "tm.created_at", joined_at: "tm.joined_at", role: "tm.role" };

/** One page of the team's members (TeamMemberData), default newest first. */
export function listTeamMembers(sqlite: Database, teamId: string, q: { sort?: string; query: Record<string, unknown> }) {
  const sort = parseSort(q.sort, MEMBER_SORT, "-created_at", "tm.id");
  const page = parsePage(q.query, sort.length);
  const columns = sort.map((k) => k.column.replace("tm.", ""));
  const result = keysetPage<MemberRow & Record<string, string | number>>(sqlite, {
    select: `SELECT tm.id, tm.role, tm.joined_at, tm.created_at, u.id AS user_id, u.name AS user_name, u.email AS user_email, u.avatar AS user_avatar
             FROM team_members tm JOIN users u ON u.id = tm.user_id`,
    where: ["tm.team_id = ?"],
    params: [teamId],
    sort,
    size: page.size,
    cursor: page.cursor,
    valuesOf: (row) => columns.map((c) => row[c] as string | number),
  });
  return { page: result, data: result.rows.map(serializeMember), size: page.size };
}
