#!/usr/bin/env bun
// Posthorn always runs in production mode, from source (`npm start`), as the binary and under
// systemd: Elysia and Bun read NODE_ENV when they load, and outside production they put
// validation details and development error pages (stack, source, paths) into responses.
process.env.NODE_ENV = "production";
// The SMTP agent, a child process of `serve` (src/mail/smtp-agent.ts), starts here without
// loading the server's modules; every other command is the CLI.
if (process.argv[2] === "smtp-agent") (await import("./mail/smtp-agent.ts")).runSmtpAgent();
else {
  if (process.argv[2] === "serve") {
    // The allocator's options for the server, read only as a process starts (src/memory/allocator-options.ts says why).
    (await import("./memory/allocator-options.ts")).reexecWithAllocatorOptions();
    // The server's JS heap held to what is live plus 16 MB (src/memory/heap-collector.ts says why).
    (await import("./memory/heap-collector.ts")).collectGarbageAsHeapGrows({ stepBytes: 16 * 1024 * 1024, everyMs: 500 });
  }
  await import("./cli/commands.ts");
}
export {};
