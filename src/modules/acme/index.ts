import { Elysia } from "elysia";
import type { Deps } from "../../context.ts";
import { http01Answer } from "../../tls/http01.ts";

/**
 * GET /.well-known/acme-challenge/{token}: the ACME CA's HTTP-01 validation request, answered on
 * any node from the database. Public and outside the API's document.
 */
export const acmeChallengeController = (deps: Deps) =>
  new Elysia({ name: "acme-challenge" }).get(
    "/.well-known/acme-challenge/:token",
    async ({ params }) => {
      const answer = await http01Answer(deps, params.token);
      const headers = { "content-type": "text/plain; charset=utf-8", "cache-control": "no-store" };
      return answer === null ? new Response("Not found.\n", { status: 404, headers }) : new Response(answer, { headers });
    },
    { detail: { hide: true } },
  );
