import { Elysia } from "elysia";
import type { Store } from "../db/store.ts";
import type { Logger } from "../log.ts";
import { errorResponse } from "./error-responses.ts";

/** The status an answer goes out with: a returned Response's own, else what the handler set. */
function statusOf(response: unknown, set: { status?: number | string }): number {
  if (response instanceof Response) return response.status;
  return typeof set.status === "number" ? set.status : Number(set.status ?? 200) || 200;
}

/**
 * Every request is a unit of work (db/writer.ts on SQLite, db/store-postgres.ts on PostgreSQL): what it writes commits only if its answer
 * succeeds, and that answer is sent once the commit is durable. An error anywhere — a 4xx from a
 * service, a response that breaks its schema, a crash — rolls the request's writes back.
 * Registered before the root error handler, so its onError runs first and answers nothing.
 */
export const unitOfWork = (store: Store, log: Logger) =>
  new Elysia({ name: "unit-of-work" })
    .wrap(((handle: (...args: unknown[]) => unknown) =>
      (...args: unknown[]) =>
        store.withUnit(() => handle(...args))) as never)
    .onError({ as: "global" }, () => {
      void store.currentUnit()?.finish(false);
    })
    .mapResponse({ as: "global" }, async ({ response, set }) => {
      try {
        await store.currentUnit()?.finish(statusOf(response, set) < 400);
      } catch (err) {
        // The commit failed after the handler answered: that answer must not go out. The error
        // is mapped here, as the root handler would (a database gone meanwhile is a 503).
        return errorResponse("COMMIT", err, log);
      }
    });
