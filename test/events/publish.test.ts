import { expect, test } from "bun:test";
import { publishEvent, WEBHOOK_MAX_ATTEMPTS, WEBHOOK_QUEUE } from "../../src/events/publish.ts";
import { createTestApp, engine, waitFor } from "../helpers.ts";

// The event and its delivery jobs are written by one statement (PostgreSQL) or a read and the
// inserts (SQLite): which webhooks get a job, and whether the event is kept, is decided in SQL
// on PostgreSQL and by the read on SQLite.
test("an event queues one delivery job per enabled webhook of its route subscribed to its kind, and wakes the runner only then", async () => {
  const t = createTestApp();
  const routeOf = async (type: string) =>
    (await t.sql.get<{ id: string }>("SELECT id FROM routes WHERE project_id = ? AND route_type = ?", [t.team.projectId, type]))!.id;
  const route = await routeOf("transactional");
  const other = await routeOf("broadcast");
  const hook = async (routeId: string, events: string[], enabled = true) => {
    const res = await t.request("POST", "/v1/webhooks", { body: { route_id: routeId, name: "hook", url: "https://hooks.example.com/x", events } });
    expect(res.status).toBe(201);
    if (!enabled) expect((await t.request("PUT", `/v1/webhooks/${res.json.data.id}`, { body: { enabled: false } })).status).toBe(200);
    return res.json.data.id as string;
  };
  const both = await hook(route, ["message.sent", "message.delivered"]);
  const onlyDelivered = await hook(route, ["message.delivered"]);
  await hook(route, ["message.bounced"]); // another kind
  await hook(route, ["message.delivered"], false); // disabled
  await hook(other, ["message.delivered"]); // another route

  const woken: string[] = [];
  t.deps.store.signals.onEnqueue = (q) => woken.push(q);
  const jobs = async () =>
    (await t.sql.all<{ payload: string; max_attempts: number }>("SELECT payload, max_attempts FROM jobs WHERE queue = ? ORDER BY id", [WEBHOOK_QUEUE])).map((j) => ({
      ...(JSON.parse(j.payload) as { eventId: string; webhookId: string }),
      maxAttempts: j.max_attempts,
    }));

  const delivered = await t.deps.store.write((tx) => publishEvent(tx, { teamId: t.team.teamId, routeId: route, kind: "message.delivered", data: {} }));
  await Bun.sleep(5);
  const queued = await jobs();
  expect(queued.map((j) => j.webhookId).sort()).toEqual([both, onlyDelivered].sort());
  expect(queued.every((j) => j.eventId === delivered && j.maxAttempts === WEBHOOK_MAX_ATTEMPTS)).toBe(true);
  // (On PostgreSQL the node also hears its own NOTIFY: a second wake-up, which may take a while.)
  await waitFor(() => woken.length >= (engine === "postgres" ? 2 : 1), 5_000);
  await Bun.sleep(50);
  expect(new Set(woken)).toEqual(new Set([WEBHOOK_QUEUE]));
  woken.length = 0;

  // Nobody subscribed, or no route at all: no job, no wake-up, and no row; the event with jobs is on record, its body what they send.
  const sent = await t.deps.store.write((tx) => publishEvent(tx, { teamId: t.team.teamId, routeId: other, kind: "message.sent", data: {} }));
  const routeless = await t.deps.store.write((tx) => publishEvent(tx, { teamId: t.team.teamId, routeId: null, kind: "domain.dns_record_failed", data: {} }));
  await Bun.sleep(50);
  expect((await jobs()).length).toBe(2);
  expect(woken).toEqual([]);
  const recorded = await t.sql.all<{ id: string; kind: string; body: string }>("SELECT id, kind, body FROM events WHERE id IN (?, ?, ?)", [delivered, sent, routeless]);
  expect(recorded.map((e) => [e.id, e.kind])).toEqual([[delivered, "message.delivered"]]);
  expect(JSON.parse(recorded[0]!.body)).toMatchObject({ id: delivered, event: "message.delivered", data: {} });
});
