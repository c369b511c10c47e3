import { type FakeProviderServer, fakeOpenAIServer } from '@bridle/testing';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { fakeOpenAIEnv, requireBuild, runCli } from './cli-process';

beforeAll(requireBuild);

let server: FakeProviderServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const usage = { inputTokens: 10, outputTokens: 5 };

describe('--output-format', () => {
  it('stream-json writes one run event per line on stdout, text deltas included, run_end last', async () => {
    server = await fakeOpenAIServer([
      { content: '', toolCalls: [{ id: 'c1', name: 'calculator', arguments: { expression: '6 * 7' } }], usage },
      { content: 'It is 42.', usage },
    ]);
    const result = await runCli(['run', 'what is 6*7?', '--output-format', 'stream-json'], {
      env: fakeOpenAIEnv(server),
    });
    expect(result.code).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    const events = lines.map((line) => JSON.parse(line) as { type: string; text?: string; answer?: string });
    expect(events[0]?.type).toBe('run_start');
    expect(events.at(-1)).toMatchObject({ type: 'run_end', status: 'completed', answer: 'It is 42.' });
    expect(events.map((event) => event.type)).toEqual(
      expect.arrayContaining(['model_start', 'model_end', 'tool_start', 'tool_end', 'text_delta']),
    );
    const streamed = events.filter((event) => event.type === 'text_delta').map((event) => event.text);
    expect(streamed.join('')).toBe('It is 42.');
    // Nothing for a person on stdout: the outcome line stays off too.
    expect(result.stderr).not.toContain('completed');
  });

  it('json is --json: one result object', async () => {
    server = await fakeOpenAIServer([{ content: 'Hi.', usage }]);
    const result = await runCli(['run', 'hi', '--output-format', 'json'], { env: fakeOpenAIEnv(server) });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ status: 'completed', answer: 'Hi.' });
  });

  it('an unknown format, or --json with another format, is a usage error before any model call', async () => {
    server = await fakeOpenAIServer([]);
    const unknown = await runCli(['run', 'hi', '--output-format', 'yaml'], { env: fakeOpenAIEnv(server) });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('Allowed choices are text, json, stream-json');
    const both = await runCli(['run', 'hi', '--json', '--output-format', 'stream-json'], {
      env: fakeOpenAIEnv(server),
    });
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('--json and --output-format stream-json disagree');
    expect(server.requests).toHaveLength(0);
  });
});
