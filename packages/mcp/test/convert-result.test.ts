import { describe, expect, it } from 'vitest';
import { convertResult } from '../src/convert-result';

describe('convertResult', () => {
  it('joins text parts with newlines', () => {
    expect(
      convertResult({
        content: [
          { type: 'text', text: 'a' },
          { type: 'text', text: 'b' },
        ],
      }),
    ).toBe('a\nb');
  });

  it('describes images, audio, links and embedded resources by type and size', () => {
    const png = Buffer.alloc(12 * 1024).toString('base64');
    expect(
      convertResult({
        content: [
          { type: 'image', data: png, mimeType: 'image/png' },
          { type: 'audio', data: 'AAAA', mimeType: 'audio/wav' },
          { type: 'resource_link', uri: 'file:///a.txt', name: 'a.txt' },
          { type: 'resource', resource: { uri: 'file:///b.bin', blob: Buffer.alloc(2_000_000).toString('base64') } },
          { type: 'mystery' },
          null,
        ],
      }),
    ).toBe(
      '[image image/png, 12 KB]\n[audio audio/wav, 3 B]\n[resource link file:///a.txt (a.txt)]\n[resource file:///b.bin 1.9 MB]\n[mystery part]\n[unreadable part]',
    );
  });

  it('adds structuredContent as JSON unless a text part already carries it', () => {
    expect(convertResult({ content: [{ type: 'text', text: '{ "sum": 3 }' }], structuredContent: { sum: 3 } })).toBe(
      '{ "sum": 3 }',
    );
    expect(convertResult({ content: [{ type: 'text', text: 'three' }], structuredContent: { sum: 3 } })).toBe(
      'three\n{"sum":3}',
    );
    expect(convertResult({ structuredContent: [1, 2] })).toBe('[1,2]');
  });

  it("FastMCP's { result } beside the text it mirrors is sent once", () => {
    const text = 'Forecast for Lyon: sunny';
    expect(convertResult({ content: [{ type: 'text', text }], structuredContent: { result: text } })).toBe(text);
    expect(convertResult({ content: [{ type: 'text', text: '21' }], structuredContent: { result: 21 } })).toBe('21');
    expect(
      convertResult({
        content: [
          { type: 'text', text: 'a' },
          { type: 'text', text: '{"b": 1}' },
        ],
        structuredContent: { result: ['a', { b: 1 }] },
      }),
    ).toBe('a\n{"b": 1}');
    // Information the text does not carry is kept.
    expect(convertResult({ content: [{ type: 'text', text }], structuredContent: { result: 'rain' } })).toBe(
      `${text}\n{"result":"rain"}`,
    );
    expect(convertResult({ content: [{ type: 'text', text }], structuredContent: { text } })).toBe(
      `${text}\n{"text":"${text}"}`,
    );
  });

  it('an empty or malformed result is empty text, never a throw', () => {
    expect(convertResult({})).toBe('');
    expect(convertResult({ content: 'nope' })).toBe('');
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(convertResult({ structuredContent: cyclic })).toBe('[structured content that is not JSON]');
  });
});
