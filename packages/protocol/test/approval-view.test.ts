import { describe, expect, it } from 'vitest';
import { approvalView, isWholeArgumentKey } from '../src/index';

describe('approvalView', () => {
  it('shows short arguments whole, on one line, every key in the model order', () => {
    const view = approvalView({ path: 'a.txt', content: 'hi', mode: 1 });
    expect(view).toEqual({
      fields: [
        { key: 'path', value: '"a.txt"', omitted: 0 },
        { key: 'content', value: '"hi"', omitted: 0 },
        { key: 'mode', value: '1', omitted: 0 },
      ],
      text: '{"path":"a.txt","content":"hi","mode":1}',
      omitted: 0,
      full: '{\n  "path": "a.txt",\n  "content": "hi",\n  "mode": 1\n}',
    });
  });

  it('a long first value is shortened in its middle, never hiding the later path (the attack of issue 28)', () => {
    const content = `${'a'.repeat(5000)}MIDDLE${'z'.repeat(5000)}`;
    const path = `.github/workflows/${'deep/'.repeat(100)}ci.yml`;
    const view = approvalView({ content, path }, { maxValueChars: 20 });
    expect(view.fields).toEqual([
      { key: 'content', value: `"${'a'.repeat(10)}…[9986 characters]…${'z'.repeat(10)}"`, omitted: 9986 },
      { key: 'path', value: JSON.stringify(path), omitted: 0 },
    ]);
    expect(view.text).toBe(
      `{"content":"${'a'.repeat(10)}…[9986 characters]…${'z'.repeat(10)}","path":${JSON.stringify(path)}}`,
    );
    expect(view.omitted).toBe(9986);
    expect(JSON.parse(view.full)).toEqual({ content, path });
  });

  it('never shortens command, url, preset parameters and other keys that say where a call acts', () => {
    const long = 'x'.repeat(500);
    const view = approvalView(
      { command: long, params: { target: long }, url: `https://example.com/${long}`, file_path: long, note: long },
      { maxValueChars: 40 },
    );
    expect(view.fields.map((field) => field.omitted)).toEqual([0, 0, 0, 0, 460]);
    expect(view.fields[1]?.value).toBe(JSON.stringify({ target: long }));
    for (const key of [
      'path',
      'filePath',
      'FILE_PATH',
      'baseUrl',
      'uri',
      'paths',
      'command',
      'params',
      'cwd',
      'destination',
    ])
      expect(isWholeArgumentKey(key)).toBe(true);
    for (const key of ['content', 'text', 'body', 'pathology', 'urlencoded'])
      expect(isWholeArgumentKey(key)).toBe(false);
  });

  it('counts characters, not UTF-16 units, and never splits a surrogate pair; escapes what JSON escapes', () => {
    const view = approvalView({ text: `${'😀'.repeat(30)}\u001b[2J` }, { maxValueChars: 20 });
    expect(view.fields[0]).toEqual({
      key: 'text',
      value: `"${'😀'.repeat(10)}…[14 characters]…${'😀'.repeat(6)}\\u001b[2J"`,
      omitted: 14,
    });
    expect(view.text).not.toContain('\u001b');
    const mixed = approvalView({ t: 'a😀'.repeat(20) }, { maxValueChars: 21 });
    expect(mixed.fields[0]?.value).toBe(`"${'a😀'.repeat(5)}a…[19 characters]…${'a😀'.repeat(5)}"`);
  });

  it('shortens long nested values as JSON text, long keys too, and arguments that are not an object', () => {
    const view = approvalView({ list: Array.from({ length: 50 }, (_, index) => index) }, { maxValueChars: 20 });
    expect(view.fields[0]).toEqual({ key: 'list', value: '[0,1,2,3,4…[121 characters]…,47,48,49]', omitted: 121 });
    const key = 'k'.repeat(100);
    const keyed = approvalView({ [key]: 1 }, { maxValueChars: 20 });
    expect(keyed.fields[0]).toEqual({
      key: `${'k'.repeat(10)}…[80 characters]…${'k'.repeat(10)}`,
      value: '1',
      omitted: 80,
    });
    expect(keyed.text).toBe(`{"${'k'.repeat(10)}…[80 characters]…${'k'.repeat(10)}":1}`);
    const raw = approvalView('{"path": not json', { maxValueChars: 20 });
    expect(raw).toEqual({ fields: [], text: '"{\\"path\\": not json"', omitted: 0, full: '"{\\"path\\": not json"' });
  });

  it('never throws: cycles, BigInt and odd limits', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(approvalView(cyclic).fields[0]?.value).toBe('[object that JSON cannot hold]');
    expect(approvalView({ n: 10n }).text).toBe('{"n":[bigint that JSON cannot hold]}');
    expect(approvalView({ a: 'x'.repeat(300) }, { maxValueChars: Number.NaN }).omitted).toBe(100);
    expect(approvalView({ a: 'x'.repeat(300) }, { maxValueChars: 1 }).omitted).toBe(280);
    expect(approvalView({ a: 'x'.repeat(300) }, { maxValueChars: Number.POSITIVE_INFINITY }).omitted).toBe(0);
    expect(approvalView(undefined)).toEqual({ fields: [], text: 'undefined', omitted: 0, full: 'undefined' });
  });
});
