import { t } from "elysia";
import { PageQuery } from "../../http/pagination.ts";
import { Nullable } from "../../http/schemas.ts";

/** One row of the audit log as the API answers it. */
export const AuditEntry = t.Object({
  id: t.String(),
  actor: t.Object({
    kind: t.Union([t.Literal("user"), t.Literal("team_token"), t.Literal("named_token"), t.Literal("cli")], {
      description: "user: a dashboard session (id: the user's id); named_token: one of the team's named tokens (id, name); team_token: the team's own token (id: the team's); cli: posthorn on the server (name: the OS user)",
    }),
    id: Nullable(t.String()),
    name: Nullable(t.String()),
  }),
  operation: t.String({ description: 'The method and route template of the change, as in the OpenAPI document ("DELETE /v1/domains/{id}"), or "cli …" for the command line' }),
  target_ids: t.Record(t.String(), t.String(), { description: "The path parameters of the change (its targets), by name" }),
  changes: t.Record(t.String(), t.Unknown(), { description: 'The request body\'s fields; secret ones (passwords, tokens, secrets, keys, codes) as "[redacted]", long or binary values as "[omitted]"' }),
  status: t.Integer({ description: "The HTTP status of the change's answer (only successful changes are logged)" }),
  ip: Nullable(t.String()),
  user_agent: Nullable(t.String()),
  created_at: t.String({ format: "date-time" }),
});

const filter = (name: string, what: string) =>
  t.Optional(t.String({ minLength: 1, maxLength: 255, error: `The filter[${name}] field must be 1 to 255 characters.`, description: what }));
const dateFilter = (name: string, what: string) =>
  t.Optional(t.String({ maxLength: 40, description: `${what}: ISO 8601 date (2024-05-01) or date-time with zone`, error: `The filter[${name}] field must be an ISO 8601 date or date-time.` }));

export const AuditQuery = t.Object({
  ...PageQuery,
  "filter[actor]": filter("actor", "An actor's id (a user's id, a named token's id) or kind (user, team_token, named_token, cli)"),
  "filter[target]": filter("target", "An id among the change's target ids"),
  "filter[operation]": filter("operation", 'Exact operation, e.g. "DELETE /v1/domains/{id}"'),
  "filter[from]": dateFilter("from", "Changes at or after"),
  "filter[to]": dateFilter("to", "Changes at or before (a date: through its end)"),
});
