/**
 * Worker thread that composes and DKIM-signs outbound messages, so the CPU-heavy MIME building
 * runs beside the event loop that serves HTTP and commits delivery outcomes. Messages in:
 * {id, input, key}; out: {id, raw (transferred), links} or {id, error}.
 */
import { composeSigned, type ComposeInput } from "./compose-message.ts";
import type { DkimKey } from "./dkim.ts";

declare const self: Worker;

export interface ComposeRequest {
  id: number;
  input: ComposeInput;
  key: DkimKey;
}
export type ComposeResponse = { id: number; raw: Uint8Array; links: string[] } | { id: number; error: string };

self.onmessage = async (event: MessageEvent<ComposeRequest>) => {
  const { id, input, key } = event.data;
  try {
    // Buffers arrive as plain Uint8Arrays after structured cloning.
    const attachments = input.attachments.map((a) => ({ ...a, content: Buffer.from(a.content.buffer, a.content.byteOffset, a.content.byteLength) }));
    const { raw, links } = await composeSigned({ ...input, attachments, date: new Date(input.date) }, key);
    // A Buffer may be a view into a shared pool: copy into its own memory to transfer it.
    const out = new Uint8Array(raw.length);
    out.set(raw);
    self.postMessage({ id, raw: out, links } satisfies ComposeResponse, [out.buffer]);
  } catch (err) {
    self.postMessage({ id, error: err instanceof Error ? err.message : String(err) } satisfies ComposeResponse);
  }
};
