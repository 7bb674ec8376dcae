// PostgreSQL restarted under send load: while it is down the API answers 503 with a JSON message
// (never a 500, never a stack); the node recovers by itself when it is back; every message that
// got a 202 is stored and reaches "delivered".
import { expect, test } from "bun:test";
import { startServer } from "../../src/server.ts";
import { testConfig, waitFor } from "../helpers.ts";
import { testPostgres } from "../support/postgres.ts";
import { preparePostgresDatabase } from "./fixtures/outbound-server.ts";
import { requireTool } from "../support/tools.ts";

test.skipIf(!requireTool("postgresql"))(
  "PostgreSQL restarted under send load: 503 during the outage, recovery by itself, nothing that got a 202 lost",
  async () => {
    const pg = await testPostgres();
    const url = await pg.createDatabase();
    const data = await preparePostgresDatabase(url);
    const server = await startServer(
      testConfig({ POSTHORN_DATABASE_URL: url, POSTHORN_HTTP_HOST: "127.0.0.1", POSTHORN_HTTP_PORT: "0", POSTHORN_DELIVERY: "sink", POSTHORN_DATABASE_POOL_WAIT_MS: "1000" }),
    );
    const base = `http://127.0.0.1:${server.httpPort}`;
    const accepted: string[] = [];
    const statuses = new Map<number, number>();
    const bad: string[] = [];
    let stop = false;
    let halted = false;
    let acceptedAfterResume = 0;
    let resumed = false;
    const client = async (c: number) => {
      for (let i = 0; !stop; i++) {
        let status = 0;
        let text = "";
        try {
          const res = await fetch(`${base}/v1/send`, {
            method: "POST",
            headers: { "content-type": "application/json", "x-service-token": data.boot.project_token },
            body: JSON.stringify({ from: `app@${data.domain}`, to: [`u${c}-${i}@dest.test`], subject: "outage", text: "must not be lost" }),
          });
          status = res.status;
          text = await res.text();
        } catch (err) {
          bad.push(`connection: ${String(err)}`);
          await Bun.sleep(20);
          continue;
        }
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
        if (status === 202) {
          accepted.push((JSON.parse(text) as { message_id: string }).message_id);
          if (resumed) acceptedAfterResume++;
        } else if (status === 503) {
          const body = JSON.parse(text) as Record<string, unknown>;
          if (Object.keys(body).join() !== "message,error" || typeof body.message !== "string" || body.error !== "service_unavailable" || /\bat \S+:\d+/.test(text)) bad.push(`503 body ${text}`);
          await Bun.sleep(20);
        } else bad.push(`${status} ${text.slice(0, 200)}`);
      }
    };
    const clients = Array.from({ length: 16 }, (_, c) => client(c));
    try {
      await waitFor(() => accepted.length >= 200, 20_000, 10);
      pg.halt();
      halted = true;
      const duringOutage = await fetch(`${base}/healthz`);
      expect(duringOutage.status).toBe(503);
      await Bun.sleep(1500);
      pg.resume();
      halted = false;
      resumed = true;
      await waitFor(() => acceptedAfterResume >= 200, 30_000, 20);
    } finally {
      if (halted) pg.resume();
      stop = true;
      await Promise.all(clients);
    }
    console.log(`outage: ${[...statuses].map(([s, n]) => `${n}× ${s}`).join(", ")}; ${acceptedAfterResume} accepted after the restart`);
    expect(bad).toEqual([]);
    expect(statuses.get(503) ?? 0).toBeGreaterThan(0);
    expect((await fetch(`${base}/healthz`)).status).toBe(200);

    // Every 202 is stored and delivered.
    const delivered = async () =>
      Number(((await data.sql.unsafe("SELECT count(*) AS n FROM messages WHERE id = ANY($1::text[]) AND status = 'delivered'", [accepted])) as { n: bigint }[])[0]!.n);
    await waitFor(async () => (await delivered()) === accepted.length, 60_000, 200);
    await server.stop();
    await data.sql.close();
  },
  120_000,
);
