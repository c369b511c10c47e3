/** Largest stdin prompt read, in bytes. */
export const MAX_STDIN_BYTES = 10 * 1024 * 1024;

/** Reads a stream to its end as UTF-8 text; rejects past {@link MAX_STDIN_BYTES}. */
export async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
    size += buffer.length;
    if (size > MAX_STDIN_BYTES) throw new Error(`stdin is larger than ${MAX_STDIN_BYTES} bytes`);
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}
