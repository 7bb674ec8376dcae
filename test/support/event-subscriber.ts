import type { Deps } from "../../src/context.ts";
import { EVENT_KINDS } from "../../src/events/publish.ts";
import { newId } from "../../src/ids.ts";
import { sqlOf } from "./test-database.ts";

/** Where the subscriber's deliveries go: a closed port on loopback, so they fail at once and stay on the machine. */
export const SUBSCRIBER_URL = "https://127.0.0.1:9/posthorn-test-subscriber";

/**
 * Subscribes a webhook to every event kind, machines' tracking hits included, on each route in
 * the database that has none yet, so the events a test reads are recorded: an event that no
 * webhook receives leaves no row. Call it after the routes the test publishes to exist.
 */
export async function subscribeEveryRoute(deps: Deps): Promise<void> {
  const routes = await sqlOf(deps).all<{ id: string; team_id: string }>(
    "SELECT r.id, r.team_id FROM routes r WHERE NOT EXISTS (SELECT 1 FROM webhooks w WHERE w.route_id = r.id AND w.url = ?)",
    [SUBSCRIBER_URL],
  );
  const now = Date.now();
  await deps.store.write(async (tx) => {
    for (const r of routes) {
      await tx.webhooks.insert({
        id: newId(),
        team_id: r.team_id,
        route_id: r.id,
        name: "every event (test)",
        url: SUBSCRIBER_URL,
        events: JSON.stringify(EVENT_KINDS),
        enabled: 1,
        include_machine_events: 1,
        secret: "whsec_test",
        disabled_reason: null,
        last_called_at: null,
        created_at: now,
        updated_at: now,
      });
    }
  });
}
