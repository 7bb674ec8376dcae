import type { SessionPrincipal } from "../../auth/sessions.ts";
import type { TeamPrincipal } from "../../auth/tokens.ts";
import type { Deps } from "../../context.ts";
import { MEMBER_SORT, MEMBER_SORT_ID, type NewTeam } from "../../db/teams.ts";
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from "../../errors.ts";
import { parsePage, parseSort } from "../../http/pagination.ts";
import { iso, newId, newToken, sha256Hex, TOKEN_PREFIX } from "../../ids.ts";
import { serializeMember, type TeamData, type TeamMemberData } from "./model.ts";

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

/** How long an invitation's password link works. */
export const PASSWORD_LINK_MS = 7 * 24 * 3600_000;

/** Inviting and removing members is for owners: a session of another role gets a 403 (the team token may do anything). */
function requireOwner(principal: TeamPrincipal): void {
  if ("session" in principal && (principal as SessionPrincipal).session.role !== "owner") {
    throw new ForbiddenError("Only team owners can invite or remove members.");
  }
}

/**
 * Adds a member to the team. A new user gets a one-time link to set a password (`passwordUrl`,
 * shown once); someone who already has a password (a member of another team) signs in with it.
 */
export async function inviteMember(
  deps: Pick<Deps, "store" | "config">,
  principal: TeamPrincipal,
  input: { email: string; name?: string; role?: string },
): Promise<{ data: TeamMemberData; passwordUrl: string | null }> {
  requireOwner(principal);
  const email = input.email.trim().toLowerCase();
  const now = Date.now();
  const member = { id: newId(), team_id: principal.teamId, role: input.role ?? "member", created_at: now };
  return deps.store.write(async (tx) => {
    let user = await tx.accounts.userByEmail(email);
    if (user && (await tx.accounts.memberships(user.id)).some((m) => m.team_id === principal.teamId)) {
      throw new ConflictError(`${email} is already a member of the team.`);
    }
    if (!user) {
      user = { id: newId(), name: input.name?.trim() || email.split("@")[0]!, email, password_hash: null };
      await tx.accounts.insertUser({ ...user, created_at: now });
    }
    await tx.accounts.addMember({ ...member, user_id: user.id });
    let passwordUrl: string | null = null;
    if (user.password_hash === null) {
      const token = newToken("");
      await tx.accounts.replacePasswordToken({ token_hash: sha256Hex(token), user_id: user.id, created_at: now, expires_at: now + PASSWORD_LINK_MS });
      passwordUrl = `${deps.config.publicUrl.replace(/\/+$/, "")}/#/set-password/${token}`;
    }
    const data: TeamMemberData = {
      id: member.id,
      role: member.role,
      joined_at: iso(now)!,
      created_at: iso(now)!,
      user: { id: user.id, name: user.name, email: user.email, avatar: null },
    };
    return { data, passwordUrl };
  });
}

/** Removes a member and ends their sessions in this team; the last owner stays (409). */
export async function removeMember(deps: Pick<Deps, "store">, principal: TeamPrincipal, memberId: string): Promise<void> {
  requireOwner(principal);
  await deps.store.write(async (tx) => {
    const member = await tx.accounts.member(memberId.toLowerCase(), principal.teamId);
    if (!member) throw new NotFoundError("Team member");
    if (member.role === "owner" && (await tx.accounts.countOwners(principal.teamId)) <= 1) {
      throw new ConflictError("The team's last owner cannot be removed; make another member owner first.");
    }
    await tx.accounts.removeMember(member, principal.teamId);
  });
}
