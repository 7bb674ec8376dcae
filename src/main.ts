#!/usr/bin/env bun
// The SMTP agent, a child process of `serve` (src/mail/smtp-agent.ts), starts here without
// loading the server's modules; every other command is the CLI.
if (process.argv[2] === "smtp-agent") (await import("./mail/smtp-agent.ts")).runSmtpAgent();
else await import("./cli.ts");
export {};
