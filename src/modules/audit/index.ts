import { Elysia } from "elysia";
import type { Deps } from "../../context.ts";
import { authPlugin } from "../../http/auth.ts";
import { Paginated, pageBody } from "../../http/pagination.ts";
import { errorResponses } from "../../http/schemas.ts";
import { AuditEntry, AuditQuery } from "./model.ts";
import { AUDIT_RETENTION_DAYS } from "../../auth/audit.ts";
import { listAuditLog } from "./service.ts";

const security = [{ teamToken: [] }];

/** The team's audit log (docs/access.md): read-only; rows are written by src/http/audit.ts and the CLI. */
export const auditController = (deps: Deps) =>
  new Elysia({ tags: ["Team"] }).use(authPlugin(deps)).get(
    "/v1/team/audit-log",
    async ({ team, query }) => {
      const { page, data, size } = await listAuditLog(deps, team.teamId, query);
      return pageBody(page, data, { publicUrl: deps.config.publicUrl, path: "/v1/team/audit-log", query, size });
    },
    {
      team: true,
      permission: "audit:read",
      query: AuditQuery,
      detail: {
        summary: "List the team's audit log",
        description: `Every successful change made through the API, the dashboard or the CLI, newest first: who (a user, a named token, the team token, the CLI), the operation and its target ids, the changed fields (never secret values), the status, IP and user agent. Kept ${AUDIT_RETENTION_DAYS} days.`,
        security,
      },
      response: { 200: Paginated(AuditEntry), ...errorResponses(401, 403, 422) },
    },
  );
