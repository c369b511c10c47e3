import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { requireBuild, runCli, tempDir } from './cli-process';

beforeAll(requireBuild);

describe('bridle demo', () => {
  it('runs offline without a key: validated calls, a rejected call recovered, a command preset, a limit, the trace summary', async () => {
    const cwd = tempDir();
    const result = await runCli(['demo', '--trace', 'demo-trace.jsonl'], { cwd });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const out = result.stdout;
    const workspace = /temporary copy of the sample project at (\S+)/.exec(out)?.[1] as string;
    expect(workspace).toBeDefined();
    expect(existsSync(workspace)).toBe(false);
    // A bad call is rejected by validation and the model recovers with a valid one.
    expect(out).toMatch(/^✗ edit_file \d+ms Invalid arguments: \$: missing required property "oldText"/m);
    expect(out).toMatch(/^← edit_file \d+ms Edited src\/stats\.js/m);
    // The command preset runs the project's tests: failing first, passing after the fix.
    const runs = [...out.matchAll(/^← run_command \d+ms (.*)$/gm)].map((match) => match[1]);
    expect(runs).toHaveLength(2);
    expect(runs[0]).toMatch(/^exit 1 /);
    expect(runs[1]).toMatch(/^exit 0 /);
    expect(out).toMatch(/^✓ completed · 7 steps · 6 tool calls/m);
    // The limit: a batch of 3 calls over a budget of 2 is refused whole.
    expect(out).toMatch(/^✗ tool_limit: .* · 1 step · 0 tool calls/m);
    expect(out).toContain('2 runs · 8 model calls · 6 tool calls · 11715 in / 256 out tokens · last status tool_limit');
    expect(out).toMatch(/^edit_file\s+2\s+1\s+[\d.]+$/m);
    expect(out).toContain('Demo complete.');
    const events = readFileSync(join(cwd, 'demo-trace.jsonl'), 'utf8')
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(events.filter((event) => event.type === 'run_end').map((event) => event.status)).toEqual([
      'completed',
      'tool_limit',
    ]);
  });

  it('keeps the fixed project with --keep', async () => {
    const result = await runCli(['demo', '--keep']);
    expect(result.code).toBe(0);
    const kept = /The fixed project is kept at (\S+)/.exec(result.stdout)?.[1] as string;
    expect(readFileSync(join(kept, 'src', 'stats.js'), 'utf8')).toContain('return total / values.length;');
  });
});
