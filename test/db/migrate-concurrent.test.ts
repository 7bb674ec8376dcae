/**
 * Two processes opening one fresh SQLite file at once (`posthorn serve` and a CLI command such as
 * `posthorn tls status` beside it) both migrate it: each migration must run exactly once.
 */
import { expect, test } from "bun:test";
import { join } from "node:path";
import { migrations } from "../../src/db/migrations/index.ts";
import { tempDir } from "../helpers.ts";

const SRC = join(import.meta.dir, "..", "..", "src", "db", "connection.ts");

test("processes migrating one fresh database at once all succeed, and every migration is applied once", async () => {
  for (let round = 0; round < 5; round++) {
    const file = join(tempDir("posthorn-migrate-race-"), "posthorn.db");
    const script = `import { openStorage } from ${JSON.stringify(SRC)}; const s = openStorage(${JSON.stringify(file)}); s.close();`;
    const procs = Array.from({ length: 4 }, () => Bun.spawn([process.execPath, "-e", script], { stdout: "pipe", stderr: "pipe" }));
    const results = await Promise.all(procs.map(async (p) => ({ code: await p.exited, stderr: await new Response(p.stderr).text() })));
    expect(results.map((r) => (r.code === 0 ? "ok" : r.stderr.split("\n").find((l) => l.includes("Error")) ?? r.stderr))).toEqual(["ok", "ok", "ok", "ok"]);
    const { Database } = await import("bun:sqlite");
    const db = new Database(file, { readonly: true });
    const tags = db.query<{ tag: string }, []>("SELECT tag FROM __posthorn_migrations ORDER BY tag").all().map((r) => r.tag);
    db.close();
    expect(tags).toEqual(migrations.map((m) => m.tag).sort());
  }
}, 60_000);
