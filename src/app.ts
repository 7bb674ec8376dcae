import { Elysia, type AnyElysia } from "elysia";
import type { Deps } from "./context.ts";
import { auditTrail } from "./http/audit.ts";
import { errorHandler } from "./http/error-responses.ts";
import { dashboardController } from "./http/dashboard.ts";
import { openapiController } from "./http/openapi.ts";
import { unitOfWork } from "./http/unit-of-work.ts";
import { controllers } from "./modules/index.ts";

export const VERSION: string = "0.1.0";

/** The HTTP API: one error handler, the OpenAPI document, and every module's controller. */
export function createApp(deps: Deps) {
  const errors = errorHandler(deps.log, deps.config.maxBodyBytes);
  const app = new Elysia()
    .use(unitOfWork(deps.store, deps.log))
    .use(errors)
    .use(openapiController((): AnyElysia => app, { version: VERSION, publicUrl: deps.config.publicUrl }))
    .use(dashboardController())
    .use(auditTrail(deps));
  for (const controller of controllers(deps)) app.use(controller);
  errors.learnRoutes(app.routes);
  return app;
}

export type App = ReturnType<typeof createApp>;
