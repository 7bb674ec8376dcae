import type { Database } from "bun:sqlite";
import { createProject } from "./modules/projects/service.ts";
import { countTeams, createTeam } from "./modules/team/service.ts";

export interface BootstrapResult {
  team_id: string;
  team_token: string;
  project_id: string;
  project_token: string;
}

/** A team, its owner, and a default project with one route of each type. */
export function bootstrapTeam(sqlite: Database, opts: { teamName: string; inboundDomain: string }): BootstrapResult {
  return sqlite.transaction(() => {
    const team = createTeam(sqlite, { name: opts.teamName });
    const project = createProject(sqlite, { teamId: team.teamId, name: "Default project", inboundDomain: opts.inboundDomain });
    return { team_id: team.teamId, team_token: team.teamToken, project_id: project.projectId, project_token: project.projectToken };
  })();
}

/** Bootstraps only when the database has no team yet (first `serve`). */
export function bootstrapIfEmpty(sqlite: Database, opts: { teamName: string; inboundDomain: string }): BootstrapResult | null {
  return countTeams(sqlite) === 0 ? bootstrapTeam(sqlite, opts) : null;
}
