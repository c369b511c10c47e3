import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { type InputLine, readLines } from '../src/read-lines';

async function collect(chunks: Iterable<Uint8Array | string>, maxLineBytes?: number): Promise<InputLine[]> {
  const lines: InputLine[] = [];
  for await (const line of readLines(Readable.from(chunks), maxLineBytes === undefined ? {} : { maxLineBytes }))
    lines.push(line);
  return lines;
}

describe('readLines', () => {
  it('splits on \\n, drops \\r before it and a leading BOM, keeps a last line without a break', async () => {
    expect(await collect(['\uFEFFa\r\nb', '\n\nc'])).toEqual([
      { line: 1, text: 'a' },
      { line: 2, text: 'b' },
      { line: 3, text: '' },
      { line: 4, text: 'c' },
    ]);
    expect(await collect([])).toEqual([]);
    expect(await collect(['x\n'])).toEqual([{ line: 1, text: 'x' }]);
  });

  it('joins a multi-byte character split across chunks', async () => {
    const bytes = Buffer.from('é€😀\n', 'utf8');
    const chunks = [...bytes].map((byte) => Uint8Array.of(byte));
    expect(await collect(chunks)).toEqual([{ line: 1, text: 'é€😀' }]);
  });

  it('reports a line over the limit by its size and goes on with the next ones', async () => {
    expect(await collect(['ok\n12345', '6789\n', 'after'], 8)).toEqual([
      { line: 1, text: 'ok' },
      { line: 2, tooLongBytes: 9 },
      { line: 3, text: 'after' },
    ]);
    expect(await collect(['12345678\n'], 8)).toEqual([{ line: 1, text: '12345678' }]);
  });

  it('streams a 1.2 GB line past without holding it (one reused 1 MiB chunk)', async () => {
    const chunk = Buffer.alloc(1024 * 1024, 0x78);
    const before = process.memoryUsage().arrayBuffers;
    let peak = before;
    const count = 1200;
    function* source() {
      yield Buffer.from('{"id":"a","prompt":"first"}\n');
      for (let index = 0; index < count; index++) {
        // Sampled while the reader consumes the line: what it holds shows here.
        if (index % 50 === 0) peak = Math.max(peak, process.memoryUsage().arrayBuffers);
        yield chunk;
      }
      yield Buffer.from('\n{"id":"b","prompt":"after"}\n');
    }
    const lines: InputLine[] = [];
    for await (const line of readLines(Readable.from(source(), { objectMode: false }))) {
      lines.push(line);
    }
    expect(lines).toEqual([
      { line: 1, text: '{"id":"a","prompt":"first"}' },
      { line: 2, tooLongBytes: count * 1024 * 1024 },
      { line: 3, text: '{"id":"b","prompt":"after"}' },
    ]);
    // Held: at most the 8 MiB limit plus a chunk, never the 1.2 GB line (generous margin for the GC).
    expect(peak - before).toBeLessThan(200 * 1024 * 1024);
  }, 120_000);
});
