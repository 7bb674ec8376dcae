import { afterAll, describe, expect, test } from "bun:test";
import { addSuppression } from "../../../src/events/message-status.ts";
import { createTestApp, engine, insertTestDomain } from "../../helpers.ts";

// The acceptance's statistics (stat_accepts) are written in the acceptance's own transaction: an
// upsert that fails takes the messages of its request with it, on PostgreSQL too, where the upsert
// is pipelined and only awaited before the commit. A batch adds its messages up first: one row
// change per distinct key, with the same totals as one per message.

describe("statistics: a send and its stat_accepts row commit together", () => {
  const app = createTestApp();
  afterAll(() => app.deps.store.close());
  const DOMAIN = "mail.example.com";
  insertTestDomain(app.deps, { teamId: app.team.teamId, projectId: app.team.projectId, domain: DOMAIN, status: "active" });
  const email = (tag: string, to = ["a@gmail.com"]) => ({ from: `hello@${DOMAIN}`, to, subject: "Hi", text: "Hello!", tag });
  const send = (body: unknown, path = "/v1/send") => app.request("POST", path, { projectToken: app.team.projectToken, body });
  const messages = async (tag: string) => (await app.sql.get<{ n: number }>("SELECT count(*) AS n FROM messages WHERE tag = ?", [tag]))!.n;
  const accepts = (tag: string) =>
    app.sql.all<{ provider: string; accepted: number; recipients: number }>(
      "SELECT provider, sum(accepted) AS accepted, sum(recipients) AS recipients FROM stat_accepts WHERE tag = ? GROUP BY provider ORDER BY provider",
      [tag],
    );

  test("an upsert the database refuses (a trigger on stat_accepts for tag 'boom') leaves no message, single or batch", async () => {
    if (engine === "postgres") {
      await app.sql.run(
        "CREATE FUNCTION refuse_boom() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN IF NEW.tag = 'boom' THEN RAISE EXCEPTION 'refused'; END IF; RETURN NEW; END $$",
      );
      await app.sql.run("CREATE TRIGGER refuse_boom BEFORE INSERT ON stat_accepts FOR EACH ROW EXECUTE FUNCTION refuse_boom()");
    } else {
      await app.sql.run("CREATE TRIGGER refuse_boom BEFORE INSERT ON stat_accepts WHEN NEW.tag = 'boom' BEGIN SELECT RAISE(ABORT, 'refused'); END");
    }
    expect((await send(email("boom"))).status).toBe(500);
    expect((await send([email("fine"), email("boom"), email("fine")], "/v1/send/batch")).status).toBe(500);
    expect(await messages("boom")).toBe(0);
    expect(await messages("fine")).toBe(0);
    expect(await accepts("fine")).toEqual([]);
    // The same server still accepts and counts what the trigger lets through.
    expect((await send(email("fine"))).status).toBe(202);
    expect(await messages("fine")).toBe(1);
    expect(await accepts("fine")).toEqual([{ provider: "google", accepted: 1, recipients: 1 }]);
  });

  test("a send without an outbound job (its one recipient suppressed) and a scheduled send are counted too", async () => {
    await addSuppression(app.deps.store.read, { teamId: app.team.teamId, scope: "team", email: "gone@yahoo.com", reason: "manual" });
    const res = await send(email("nojob", ["gone@yahoo.com"]));
    expect(res.json?.status).toBe("suppressed");
    expect((await send({ ...email("later", ["x@outlook.com", "y@outlook.com"]), scheduled_at: new Date(Date.now() + 3600_000).toISOString() })).status).toBe(202);
    expect(await accepts("nojob")).toEqual([{ provider: "yahoo", accepted: 1, recipients: 1 }]);
    expect(await accepts("later")).toEqual([{ provider: "microsoft", accepted: 1, recipients: 2 }]);
  });

  test("a batch of 5 messages to 3 providers counts each message once (under its first recipient's provider) and every recipient", async () => {
    const res = await send(
      [email("batch", ["a@gmail.com", "b@outlook.com"]), email("batch", ["c@gmail.com"]), email("batch", ["d@outlook.com", "e@gmail.com", "f@corp.example"]), email("batch", ["g@gmail.com"]), email("batch", ["h@corp.example"])],
      "/v1/send/batch",
    );
    expect(res.status).toBe(202);
    expect(await messages("batch")).toBe(5);
    expect(await accepts("batch")).toEqual([
      { provider: "google", accepted: 3, recipients: 4 },
      { provider: "microsoft", accepted: 1, recipients: 2 },
      { provider: "other", accepted: 1, recipients: 2 },
    ]);
  });
});
