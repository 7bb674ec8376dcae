// Memory of a large tracked send (issue 41, finding 9): one message of the largest content the
// API accepts (POSTHORN_MAX_MESSAGE_BYTES, 25 MiB by default: html + text + a random attachment)
// to 20 recipients of one destination with track_opens and track_clicks, so that every recipient
// gets a copy of its own, composed and DKIM-signed for it. A real server (bun src/main.ts serve)
// delivers it directly through a loopback DNS server to a lean SMTP sink on loopback; the peak
// RSS of the server process and of its SMTP agent (VmHWM, and VmRSS sampled every 20 ms) is printed.
//
//   bun scripts/bench/large-tracked-send.ts [contentMiB=25] [recipients=20]
//
// POSTHORN_DELIVERY_MEMORY_MB set in the environment is passed to the server (the bound on the
// signed copies held at once; default in src/config.ts).
import { largeTrackedSend } from "../../test/e2e/fixtures/large-tracked-send.ts";

const contentMiB = Number(process.argv[2] ?? 25);
const recipients = Number(process.argv[3] ?? 20);
const mb = (kb: number) => `${(kb / 1024).toFixed(0)} MB`;

const r = await largeTrackedSend({ contentBytes: Math.floor(contentMiB * 1024 * 1024), recipients });
console.log(
  `large tracked send: ${(r.contentBytes / 1024 / 1024).toFixed(1)} MiB of content to ${r.recipients} recipients, track_opens + track_clicks, ` +
    `POSTHORN_DELIVERY_MEMORY_MB=${process.env.POSTHORN_DELIVERY_MEMORY_MB ?? "default"}`,
);
console.log(`  delivered ${r.delivered}/${r.recipients} in ${r.seconds.toFixed(1)} s`);
console.log(`  server peak RSS ${mb(r.serverPeakKb)} (${mb(r.serverBaseKb)} before the send), its SMTP agent peak RSS ${mb(r.agentPeakKb)} (${mb(r.agentBaseKb)} before)`);
