// Benchmark anchor for the send API: bare Elysia with one SQLite insert per request, the floor
// of what an HTTP API on this stack can do. POST /v1/send parses the JSON body and inserts one
// row (autocommit), answering 202 with the row's id: no auth, no validation, no job, no
// idempotency. SQLite in WAL with synchronous=NORMAL, the common "fast" setting: a commit is not
// synced to disk, so unlike Posthorn's 202 it is not durable across a power loss.
//
//   bun scripts/bench/anchors/elysia-sqlite.ts PORT DATABASE_FILE   (prints "listening" when ready)
import { Database } from "bun:sqlite";
import { Elysia } from "elysia";

/** Starts the anchor in a subprocess (so it has its own thread, as Posthorn's server has) and waits until it listens. */
export async function startElysiaAnchor(port: number, file: string): Promise<{ url: string; pid: number; stop(): Promise<void> }> {
  const proc = Bun.spawn([process.execPath, import.meta.path, String(port), file], { stdout: "pipe", stderr: "inherit" });
  const reader = proc.stdout.getReader();
  let seen = "";
  while (!seen.includes("listening")) {
    const { value, done } = await reader.read();
    if (done) throw new Error("the Elysia anchor exited before listening");
    seen += new TextDecoder().decode(value);
  }
  return {
    url: `http://127.0.0.1:${port}`,
    pid: proc.pid,
    stop: async () => {
      proc.kill("SIGTERM");
      await proc.exited;
    },
  };
}

if (import.meta.main) {
  const [port, file] = process.argv.slice(2);
  const db = new Database(file!, { create: true });
  db.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL");
  db.exec("CREATE TABLE IF NOT EXISTS messages (id TEXT PRIMARY KEY, from_email TEXT, subject TEXT, body TEXT NOT NULL, created_at INTEGER NOT NULL)");
  const insert = db.prepare("INSERT INTO messages (id, from_email, subject, body, created_at) VALUES (?, ?, ?, ?, ?)");
  new Elysia()
    .post("/v1/send", ({ body, set }) => {
      const email = body as { from?: string; subject?: string };
      const id = crypto.randomUUID();
      insert.run(id, email.from ?? null, email.subject ?? null, JSON.stringify(body), Date.now());
      set.status = 202;
      return { id };
    })
    .listen({ hostname: "127.0.0.1", port: Number(port) });
  process.on("SIGTERM", () => {
    db.close();
    process.exit(0);
  });
  console.log("listening");
}
