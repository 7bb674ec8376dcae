import { Elysia } from "elysia";
import type { Deps } from "../../context.ts";
import { authPlugin } from "../../http/auth.ts";
import { errorResponses } from "../../http/schemas.ts";
import { ProjectParams, ReportForwardingBody, ReportForwardingEnvelope, VerifyForwardingBody } from "./model.ts";
import { deleteForwarding, getForwarding, resendForwardingCode, setForwarding, verifyForwarding } from "./service.ts";

const security = [{ teamToken: [] }];

/** Report forwarding of a project (docs/deliverability.md, Report forwarding). */
export const reportForwardingController = (deps: Deps) =>
  new Elysia({ tags: ["Deliverability"] })
    .use(authPlugin(deps))
    .get("/v1/projects/:projectId/report-forwarding", async ({ team, params }) => ({ data: await getForwarding(deps, team.teamId, params.projectId) }), {
      team: true,
      permission: "projects:read",
      params: ProjectParams,
      response: { 200: ReportForwardingEnvelope, ...errorResponses(401, 404) },
      detail: { summary: "The project's report forwarding: destination, verified", security },
    })
    .put("/v1/projects/:projectId/report-forwarding", async ({ team, params, body }) => ({ data: await setForwarding(deps, team.teamId, params.projectId, body) }), {
      team: true,
      permission: "projects:manage",
      params: ProjectParams,
      body: ReportForwardingBody,
      response: { 200: ReportForwardingEnvelope, ...errorResponses(401, 404, 422) },
      detail: { summary: "Set the destination DMARC and TLS reports are forwarded to; a code is mailed to it (sent through Posthorn)", security },
    })
    .delete(
      "/v1/projects/:projectId/report-forwarding",
      async ({ team, params, set }) => {
        await deleteForwarding(deps, team.teamId, params.projectId);
        set.status = 204;
      },
      { team: true, permission: "projects:manage", params: ProjectParams, detail: { summary: "Turn report forwarding off (204)", security }, response: { ...errorResponses(401, 404) } },
    )
    .post(
      "/v1/projects/:projectId/report-forwarding/verify",
      async ({ team, params, body }) => ({ data: await verifyForwarding(deps, team.teamId, params.projectId, body) }),
      {
        team: true,
      permission: "projects:manage",
        params: ProjectParams,
        body: VerifyForwardingBody,
        response: { 200: ReportForwardingEnvelope, ...errorResponses(401, 404, 422) },
        detail: { summary: "Verify the destination with the code mailed to it", security },
      },
    )
    .post(
      "/v1/projects/:projectId/report-forwarding/resend-code",
      async ({ team, params }) => ({ data: await resendForwardingCode(deps, team.teamId, params.projectId) }),
      {
        team: true,
      permission: "projects:manage",
        params: ProjectParams,
        response: { 200: ReportForwardingEnvelope, ...errorResponses(401, 404, 422, 429) },
        detail: { summary: "Mail a new code to the destination (at most once a minute)", security },
      },
    );
