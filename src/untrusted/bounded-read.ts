/**
 * Reads a byte stream from the network, whose length the sender decides, up to a bound: to its
 * end, or until it passes `limit` bytes, where the read stops and the stream is cancelled (the
 * rest is never read). `complete` says which; `bytes` is what was read (at most `limit` plus one
 * chunk).
 */
export async function readUpTo(stream: ReadableStream<Uint8Array>, limit: number): Promise<{ bytes: Uint8Array; complete: boolean }> {
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let complete = true;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      complete = false;
      break;
    }
  }
  if (chunks.length === 1) return { bytes: chunks[0]!, complete };
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    bytes.set(c, at);
    at += c.byteLength;
  }
  return { bytes, complete };
}
