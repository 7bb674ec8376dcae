import type { TeamPrincipal } from "../../auth/tokens.ts";
import type { Deps } from "../../context.ts";
import { MEMBER_SORT, MEMBER_SORT_ID, type NewTeam } from "../../db/teams.ts";
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from "../../errors.ts";
import { parsePage, parseSort } from "../../http/pagination.ts";
import { iso, newId, newToken, sha256Hex, TOKEN_PREFIX } from "../../ids.ts";
import { serializeTeamMember, type TeamData, type TeamMemberData } from "./model.ts";
import { accessOfPrincipal, assignableRole, isOwner, membersData, withinProjects } from "./roles.ts";

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
    type: "business",
    included_volume: 0,
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
export async function listTeamMembers(deps: Pick<Deps, "store">, teamId: string, q: { sort?: string; query: Record<string, unknown> }, within: readonly string[] | null = null) {
  const sort = parseSort(q.sort, MEMBER_SORT, "-created_at", MEMBER_SORT_ID);
  const page = parsePage(q.query, sort.length);
  const result = await deps.store.read.teams.members(teamId, { sort, size: page.size, cursor: page.cursor });
  return { page: result, data: await membersData(deps.store.read, teamId, result.rows, within), size: page.size };
}

/**
 * One member of the team, active or pending, by the member's id or their user's id. Another
 * team's member is a 404 like an unknown or malformed id. `within`: the caller's projects when it
 * is limited to selected ones (project_access then names only those of them).
 */
export async function getTeamMember(deps: Pick<Deps, "store">, teamId: string, id: string, within: readonly string[] | null = null): Promise<TeamMemberData> {
  const row = await deps.store.read.teams.member(teamId, id.toLowerCase());
  if (!row) throw new NotFoundError("Team member");
  return (await membersData(deps.store.read, teamId, [row], within))[0]!;
}

/** How long an invitation's link (either kind) works. */
export const INVITATION_LINK_MS = 7 * 24 * 3600_000;


export interface Invited {
  data: TeamMemberData;
  /** A link that sets the password of a user who exists nowhere else and accepts this invitation. */
  passwordUrl: string | null;
  /** A link that a user who exists already opens signed in as themselves to accept. */
  invitationUrl: string | null;
}

/**
 * Invites an address to the team: a pending membership that grants nothing until it is accepted.
 * Users are shared by the whole server, so a team never gets a credential that could work in another
 * team (docs/security.md, "Identities shared across teams"):
 * - an address with no user yet gets `passwordUrl`, a one-time link bound to this user and this
 *   invitation: setting the password through it accepts the invitation;
 * - an address that has a user (a member of, or invited to, another team; or with a password)
 *   gets `invitationUrl`: the user accepts it signed in with their own credential, and the link's
 *   token is needed too, so whoever controls the account through another team cannot accept an
 *   invitation they were never given.
 * Inviting a pending member again replaces the invitation (the earlier link stops working); an
 * active member is a 409.
 */
export async function inviteMember(
  deps: Pick<Deps, "store" | "config">,
  principal: TeamPrincipal,
  input: { email: string; name?: string; role?: string },
): Promise<Invited> {
  const email = input.email.trim().toLowerCase();
  const now = Date.now();
  const token = newToken("");
  const base = deps.config.publicUrl.replace(/\/+$/, "");
  // An invitation gives every project (an assignment narrows it after): not from one who works on selected projects only.
  if (accessOfPrincipal(principal).projects !== null) {
    throw new ForbiddenError("You work on selected projects only, and an invitation gives every project; ask a member who works on all of them.", "project_access");
  }
  return deps.store.write(async (tx) => {
    let user = await tx.accounts.userByEmail(email);
    const existing = user ? await tx.accounts.memberOfTeam(user.id, principal.teamId) : null;
    if (existing?.status === "active") throw new ConflictError(`${email} is already a member of the team.`);
    if (!user) {
      user = { id: newId(), name: input.name?.trim() || email.split("@")[0]!, email, password_hash: null };
      await tx.accounts.insertUser({ ...user, created_at: now });
    }
    // Who may invite at all is the route's permission (members:manage); which role they may give is checked here.
    const role = await assignableRole(tx, principal, input.role ?? existing?.role ?? "member", "role");
    if (existing?.role === "owner" && !isOwner(principal)) throw new ConflictError("Only an owner can invite an owner again.", "owner_protected");
    const member = { id: existing?.id ?? newId(), role };
    if (existing) await tx.accounts.renewPendingMember(member.id, member.role, now);
    else await tx.accounts.addMember({ ...member, team_id: principal.teamId, user_id: user.id, created_at: now, status: "pending" });
    // A password link only for a user who has never had a credential and exists in no other team.
    const kind = user.password_hash === null && !(await tx.accounts.inOtherTeam(user.id, principal.teamId, false)) ? "password" : "accept";
    await tx.accounts.putInvitation({
      member_id: member.id,
      team_id: principal.teamId,
      user_id: user.id,
      token_hash: sha256Hex(token),
      kind,
      created_at: now,
      expires_at: now + INVITATION_LINK_MS,
    });
    const data = serializeTeamMember({
      id: member.id,
      role: member.role,
      status: "pending",
      invitation_kind: kind,
      joined_at: now,
      created_at: now,
      user_id: user.id,
      user_name: user.name,
      user_email: user.email,
      user_avatar: null,
    });
    return kind === "password"
      ? { data, passwordUrl: `${base}/#/set-password/${token}`, invitationUrl: null }
      : { data, passwordUrl: null, invitationUrl: `${base}/#/accept-invitation/${token}` };
  });
}

/**
 * Removes a member and ends their sessions in this team; the last (active) owner stays (409).
 * Removing a pending member revokes the invitation: its link stops working. What was removed.
 */
export async function removeMember(deps: Pick<Deps, "store">, principal: TeamPrincipal, memberId: string): Promise<"active" | "pending"> {
  return deps.store.write(async (tx) => {
    const member = await tx.accounts.member(memberId.toLowerCase(), principal.teamId);
    if (!member) throw new NotFoundError("Team member");
    if (member.role === "owner" && !isOwner(principal)) throw new ConflictError("Only an owner can remove an owner.", "owner_protected");
    const own = accessOfPrincipal(principal).projects;
    if (own !== null && !withinProjects(own, (await tx.teams.member(principal.teamId, member.id))?.project_ids)) throw new NotFoundError("Team member");
    if (member.status === "active" && member.role === "owner" && (await tx.accounts.countOwners(principal.teamId)) <= 1) {
      throw new ConflictError("The team's last owner cannot be removed; make another member owner first.", "last_owner");
    }
    await tx.accounts.removeMember(member, principal.teamId);
    return member.status;
  });
}
