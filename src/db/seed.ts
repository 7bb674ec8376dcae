import type { Database } from "bun:sqlite";
import { insertProjectNow, type NewProjectRow } from "./projects.ts";
import { insertRouteNow, type NewRouteRow } from "./routes.ts";
import { insertTeamNow, type NewTeam } from "./teams.ts";

/** What seedNow inserts, in this order. */
export interface Seed {
  team?: NewTeam;
  project?: NewProjectRow;
  routes?: readonly NewRouteRow[];
}

/**
 * Inserts a team, a project and routes in one transaction (a savepoint inside the caller's),
 * synchronously on SQLite: for start-up and fixtures that cannot await (`posthorn init`, the
 * test helpers' createTestApp, benchmarks). The same statements as the repositories' inserts;
 * everything else goes through the store.
 */
export function seedNow(sqlite: Database, seed: Seed): void {
  sqlite.transaction(() => {
    if (seed.team) insertTeamNow(sqlite, seed.team);
    if (seed.project) insertProjectNow(sqlite, seed.project);
    for (const r of seed.routes ?? []) insertRouteNow(sqlite, r);
  })();
}
