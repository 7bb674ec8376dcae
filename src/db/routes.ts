import type { SqlExecutor } from "./sql.ts";

/** Routes (message streams of a project). */
export class RouteRepository {
  constructor(private readonly db: SqlExecutor) {}

  /** The route's id when it belongs to the team, else null. */
  async idOfTeam(routeId: string, teamId: string): Promise<string | null> {
    return (await this.db.get<{ id: string }>("SELECT id FROM routes WHERE id = ? AND team_id = ?", [routeId, teamId]))?.id ?? null;
  }
}
