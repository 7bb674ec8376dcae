import type { Deps } from "../../context.ts";
import { MEMBER_SORT, MEMBER_SORT_ID, type NewTeam } from "../../db/teams.ts";
import { NotFoundError, ValidationError } from "../../errors.ts";
import { parsePage, parseSort } from "../../http/pagination.ts";
import { iso, newId, newToken, sha256Hex, TOKEN_PREFIX } from "../../ids.ts";
import { serializeMember, type TeamData } from "./model.ts";

export interface CreatedTeam {
  teamId: string;
  teamToken: string;
  ownerUserId: string;
  ownerMemberId: string;
}

/** The rows of a new team with its owner, and what its creator is told once (the token). */
export function newTeam(input: { name: string; ownerName?: string; ownerEmail?: string }, now = Date.now()): { rows: NewTeam; created: CreatedTeam } {
  const teamId = newId();
  const teamToken = newToken(TOKEN_PREFIX.team);
  const ownerUserId = newId();
  const ownerMemberId = newId();
  const email = (input.ownerEmail ?? `owner+${teamId.slice(-12)}@localhost`).toLowerCase();
  return {
    rows: {
      team: { id: teamId, name: input.name, token_hash: sha256Hex(teamToken), created_at: now },
      owner: { id: ownerUserId, name: input.ownerName ?? "Owner", email, created_at: now },
      member: { id: ownerMemberId, team_id: teamId, user_id: ownerUserId, role: "owner", created_at: now },
    },
    created: { teamId, teamToken, ownerUserId, ownerMemberId },
  };
}

/** TeamData of the spec, with its counts. */
export async function getTeamData(deps: Pick<Deps, "store">, teamId: string): Promise<TeamData> {
  const r = await deps.store.read.teams.summary(teamId);
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
export async function updateTeam(deps: Pick<Deps, "store">, teamId: string, input: { name?: string | null }): Promise<TeamData> {
  if (input.name !== undefined && input.name !== null) {
    const name = input.name.trim();
    if (!name) throw ValidationError.field("name", "The name field must not be blank.");
    await deps.store.write((tx) => tx.teams.rename(teamId, name, Date.now()));
  }
  return getTeamData(deps, teamId);
}

/** One page of the team's members (TeamMemberData), default newest first. */
export async function listTeamMembers(deps: Pick<Deps, "store">, teamId: string, q: { sort?: string; query: Record<string, unknown> }) {
  const sort = parseSort(q.sort, MEMBER_SORT, "-created_at", MEMBER_SORT_ID);
  const page = parsePage(q.query, sort.length);
  const result = await deps.store.read.teams.members(teamId, { sort, size: page.size, cursor: page.cursor });
  return { page: result, data: result.rows.map(serializeMember), size: page.size };
}
