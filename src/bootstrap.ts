import type { Store } from "./db/store.ts";
import { insertProject, newProject } from "./modules/projects/service.ts";
import { newTeam } from "./modules/team/service.ts";

export interface BootstrapResult {
  team_id: string;
  team_token: string;
  project_id: string;
  project_token: string;
}

/** The rows of a team, its owner, and a default project with one route of each type. */
export function bootstrapRows(opts: { teamName: string; inboundDomain: string }, now = Date.now()) {
  const team = newTeam({ name: opts.teamName }, now);
  const project = newProject({ teamId: team.created.teamId, name: "Default project", inboundDomain: opts.inboundDomain }, now);
  const result: BootstrapResult = { team_id: team.created.teamId, team_token: team.created.teamToken, project_id: project.projectId, project_token: project.projectToken };
  return { team: team.rows, project, result };
}

/** A team, its owner, and a default project with one route of each type (`posthorn init`). */
export async function addBootstrapTeam(store: Store, opts: { teamName: string; inboundDomain: string }): Promise<BootstrapResult> {
  const { team, project, result } = bootstrapRows(opts);
  await store.write(async (tx) => {
    await tx.teams.insert(team);
    await insertProject(tx, project);
  });
  return result;
}

/** Bootstraps only when the database has no team yet (first `serve`); counted again inside the write, so two nodes starting at once make one team. */
export async function bootstrapIfEmpty(store: Store, opts: { teamName: string; inboundDomain: string }): Promise<BootstrapResult | null> {
  if ((await store.read.teams.count()) > 0) return null;
  const { team, project, result } = bootstrapRows(opts);
  return store.write(async (tx) => {
    await tx.locks.take("bootstrap");
    if ((await tx.teams.count()) > 0) return null;
    await tx.teams.insert(team);
    await insertProject(tx, project);
    return result;
  });
}
