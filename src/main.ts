#!/usr/bin/env bun
// Posthorn always runs in production mode, from source (`npm start`), as the binary and under
// systemd: Elysia and Bun read NODE_ENV when they load, and outside production they put
// validation details and development error pages (stack, source, paths) into responses.
process.env.NODE_ENV = "production";
// The SMTP agent, a child process of `serve` (src/mail/smtp-agent.ts), starts here without
// loading the server's modules; every other command is the CLI.
if (process.argv[2] === "smtp-agent") (await import("./mail/smtp-agent.ts")).runSmtpAgent();
else await import("./cli.ts");
export {};
