import { openapi } from "@elysiajs/openapi";
import { Elysia } from "elysia";
import type { Deps } from "./context.ts";
import { errorHandler } from "./http/errors.ts";
import { unitOfWork } from "./http/unit-of-work.ts";
import { controllers } from "./modules/index.ts";

export const VERSION: string = "0.1.0";

/** The HTTP API: one error handler, the OpenAPI document, and every module's controller. */
export function createApp(deps: Deps) {
  const errors = errorHandler(deps.log, deps.config.maxBodyBytes);
  const app = new Elysia()
    .use(unitOfWork(deps.store, deps.log))
    .use(errors)
    .use(
      openapi({
        path: "/openapi",
        documentation: {
          info: { title: "Posthorn API", version: VERSION, description: "Self-hosted email: send, receive, webhooks, DNS checks." },
          components: {
            securitySchemes: {
              teamToken: { type: "http", scheme: "bearer", description: "Team API token (ph_team_…)" },
              projectToken: { type: "apiKey", in: "header", name: "x-service-token", description: "Project sending token (ph_…)" },
            },
          },
        },
      }),
    );
  for (const controller of controllers(deps)) app.use(controller);
  errors.learnRoutes(app.routes);
  return app;
}

export type App = ReturnType<typeof createApp>;
