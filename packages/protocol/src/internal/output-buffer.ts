/** Keeps the first `maxBytes` of a stream and counts the rest. */
export class OutputBuffer {
  private readonly chunks: Buffer[] = [];
  private kept = 0;
  private omitted = 0;

  constructor(private readonly maxBytes: number) {}

  /** Adds a chunk; bytes past the cap are only counted. */
  push(chunk: Buffer): void {
    const room = this.maxBytes - this.kept;
    if (room >= chunk.length) {
      this.chunks.push(chunk);
      this.kept += chunk.length;
      return;
    }
    if (room > 0) {
      this.chunks.push(chunk.subarray(0, room));
      this.kept += room;
    }
    this.omitted += chunk.length - Math.max(room, 0);
  }

  /** The kept bytes as UTF-8, with a marker saying how many bytes were left out. */
  text(): string {
    const text = Buffer.concat(this.chunks).toString('utf8');
    return this.omitted === 0 ? text : `${text}\n[output truncated: ${this.omitted} more bytes not shown]`;
  }
}
