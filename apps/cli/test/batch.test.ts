import { linkSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  type FakeProviderRequest,
  type FakeProviderServer,
  type FakeProviderStep,
  fakeOpenAIServer,
} from '@bridle/testing';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { fakeOpenAIEnv, requireBuild, runCli, startCli, tempDir, until } from './cli-process';

beforeAll(requireBuild);

let server: FakeProviderServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const usage = { inputTokens: 10, outputTokens: 5 };
const env = fakeOpenAIEnv;

/** The item a request is for: prompts are "item <id>". */
function itemOf(request: FakeProviderRequest): string {
  return /item (\w+)/.exec(JSON.stringify(request.body))?.[1] ?? '?';
}

function answerEach(decide: (id: string) => FakeProviderStep = (id) => ({ content: `answer ${id}`, usage })) {
  return (request: FakeProviderRequest) => decide(itemOf(request));
}

function writeInput(dir: string, lines: string[]): void {
  writeFileSync(join(dir, 'in.jsonl'), `${lines.join('\n')}\n`);
}

function results(dir: string): Record<string, unknown>[] {
  return readFileSync(join(dir, 'results.jsonl'), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line));
}

const items = (ids: string[]) => ids.map((id) => JSON.stringify({ id, prompt: `item ${id}` }));

describe('bridle batch', () => {
  it('runs one item per line, appends one result line each, reports bad lines by number and goes on', async () => {
    server = await fakeOpenAIServer(answerEach());
    const dir = tempDir();
    writeInput(dir, [...items(['a', 'b']), '{"id": "broken",', '', ...items(['c', 'd']), '{"id":"e"}']);
    const result = await runCli(['batch', 'in.jsonl', '--out', 'results.jsonl', '--concurrency', '2'], {
      env: env(server),
      cwd: dir,
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('in.jsonl:3: skipped: not valid JSON');
    expect(result.stderr).toContain(
      'in.jsonl:7: skipped: needs exactly one of "prompt" (a string) or "messages" (an array)',
    );
    expect(result.stderr).toMatch(/^\[1\/4\] \w completed \(1 attempt, \d+ms\)$/m);
    expect(result.stderr).toMatch(
      /^Done: 4 completed · 0 failed · 2 bad lines · 40 in \/ 20 out tokens · [\d.]+s → results\.jsonl$/m,
    );
    const lines = results(dir);
    expect(lines.map((line) => line.id).sort()).toEqual(['a', 'b', 'c', 'd']);
    for (const line of lines) {
      expect(line).toEqual({
        id: line.id,
        status: 'completed',
        answer: `answer ${line.id}`,
        attempts: 1,
        steps: 1,
        toolCalls: 0,
        usage,
        runId: expect.stringMatching(/^[0-9a-f-]{36}$/),
        durationMs: expect.any(Number),
      });
    }
  });

  it('exits 0 when every item completes, and a rerun skips the ids already done', async () => {
    server = await fakeOpenAIServer(answerEach());
    const dir = tempDir();
    writeInput(dir, items(['a', 'b', 'c']));
    const first = await runCli(['batch', 'in.jsonl', '-o', 'results.jsonl'], { env: env(server), cwd: dir });
    expect(first.code).toBe(0);
    expect(server.requests).toHaveLength(3);
    const again = await runCli(['batch', 'in.jsonl', '-o', 'results.jsonl'], { env: env(server), cwd: dir });
    expect(again.code).toBe(0);
    expect(again.stderr).toContain('0 to run, 3 already in results.jsonl');
    expect(again.stderr).toContain('0 completed · 0 failed · 3 skipped (already done)');
    expect(server.requests).toHaveLength(3);
    expect(results(dir)).toHaveLength(3);
  });

  it('records a failed item with its error and exits 1', async () => {
    server = await fakeOpenAIServer(
      answerEach((id) =>
        id === 'b'
          ? { type: 'http_error', status: 400, message: 'Bad prompt for b' }
          : { content: `answer ${id}`, usage },
      ),
    );
    const dir = tempDir();
    writeInput(dir, items(['a', 'b']));
    const result = await runCli(['batch', 'in.jsonl', '-o', 'results.jsonl', '--retries', '0'], {
      env: env(server),
      cwd: dir,
    });
    expect(result.code).toBe(1);
    const failed = results(dir).find((line) => line.id === 'b');
    expect(failed).toMatchObject({
      id: 'b',
      status: 'model_error',
      attempts: 1,
      error: expect.stringContaining('Bad prompt for b'),
    });
    expect(result.stderr).toContain('1 completed · 1 failed');
  });

  it('--retries N is the whole budget of an item: a failing item makes 1 + N provider calls, not (1 + N) squared', async () => {
    server = await fakeOpenAIServer(
      answerEach((id) =>
        id === 'b' ? { type: 'http_error', status: 503, message: 'overloaded' } : { content: `answer ${id}`, usage },
      ),
    );
    const dir = tempDir();
    writeInput(dir, items(['a', 'b']));
    const result = await runCli(['batch', 'in.jsonl', '-o', 'results.jsonl', '--retries', '2'], {
      env: env(server),
      cwd: dir,
    });
    expect(result.code).toBe(1);
    expect(server.requests.filter((request) => itemOf(request) === 'b')).toHaveLength(3);
    expect(results(dir).find((line) => line.id === 'b')).toMatchObject({ status: 'model_error', attempts: 1 });
  });

  it('--retry-failed reruns only the items whose last result did not complete', async () => {
    let phase = 1;
    server = await fakeOpenAIServer(
      answerEach((id) =>
        phase === 1 && id === 'b'
          ? { type: 'http_error', status: 400, message: 'Bad prompt for b' }
          : { content: `answer ${id} in phase ${phase}`, usage },
      ),
    );
    const dir = tempDir();
    writeInput(dir, items(['a', 'b', 'c']));
    expect((await runCli(['batch', 'in.jsonl', '-o', 'results.jsonl'], { env: env(server), cwd: dir })).code).toBe(1);
    phase = 2;
    const plain = await runCli(['batch', 'in.jsonl', '-o', 'results.jsonl'], { env: env(server), cwd: dir });
    expect(plain.stderr).toContain('0 to run, 3 already in results.jsonl');
    const before = server.requests.length;
    const again = await runCli(['batch', 'in.jsonl', '-o', 'results.jsonl', '--retry-failed'], {
      env: env(server),
      cwd: dir,
    });
    expect(again.code).toBe(0);
    expect(again.stderr).toContain('1 to run, 2 already in results.jsonl');
    expect(server.requests.slice(before).map(itemOf)).toEqual(['b']);
    expect(
      results(dir)
        .filter((line) => line.id === 'b')
        .map((line) => line.status),
    ).toEqual(['model_error', 'completed']);
  });

  it('resumes after SIGKILL: no item lost, none done twice', async () => {
    let phase = 1;
    const served: string[] = [];
    server = await fakeOpenAIServer(
      answerEach((id) => {
        served.push(`${phase}:${id}`);
        return phase === 1 && !['a', 'b', 'c'].includes(id) ? { type: 'hang' } : { content: `answer ${id}`, usage };
      }),
    );
    const dir = tempDir();
    const ids = ['a', 'b', 'c', 'd', 'e', 'f'];
    writeInput(dir, items(ids));
    const first = startCli(['batch', 'in.jsonl', '-o', 'results.jsonl', '--concurrency', '2'], {
      env: env(server),
      cwd: dir,
    });
    await first.waitFor('[3/6]', 'stderr');
    await until(() => served.filter((entry) => entry.startsWith('1:')).length === 5);
    first.child.kill('SIGKILL');
    expect((await first.exited).signal).toBe('SIGKILL');
    expect(
      results(dir)
        .map((line) => line.id)
        .sort(),
    ).toEqual(['a', 'b', 'c']);

    phase = 2;
    const second = await runCli(['batch', 'in.jsonl', '-o', 'results.jsonl', '--concurrency', '2'], {
      env: env(server),
      cwd: dir,
    });
    expect(second.code).toBe(0);
    expect(second.stderr).toContain('3 to run, 3 already in results.jsonl');
    expect(served.filter((entry) => entry.startsWith('2:')).sort()).toEqual(['2:d', '2:e', '2:f']);
    const final = results(dir);
    expect(final.map((line) => line.id).sort()).toEqual(ids);
    expect(final.every((line) => line.status === 'completed')).toBe(true);
  });

  it('stops on Ctrl-C without recording unfinished items, and exits 130', async () => {
    server = await fakeOpenAIServer(
      answerEach((id) => (id === 'a' ? { content: 'answer a', usage } : { type: 'hang' })),
    );
    const fake = server;
    const dir = tempDir();
    writeInput(dir, items(['a', 'b', 'c']));
    const batch = startCli(['batch', 'in.jsonl', '-o', 'results.jsonl', '--concurrency', '1'], {
      env: env(fake),
      cwd: dir,
    });
    await batch.waitFor('[1/3]', 'stderr');
    await until(() => fake.requests.length === 2);
    batch.child.kill('SIGINT');
    const result = await batch.exited;
    expect(result.code).toBe(130);
    expect(result.stderr).toMatch(/^Interrupted: 1 completed · 0 failed · 2 not finished/m);
    expect(result.stderr).toContain('Run the same command again to resume');
    expect(results(dir).map((line) => line.id)).toEqual(['a']);
  });

  it('exits 2 for a missing input file or --out naming the input', async () => {
    server = await fakeOpenAIServer([]);
    const dir = tempDir();
    const missing = await runCli(['batch', 'nope.jsonl', '-o', 'results.jsonl'], { env: env(server), cwd: dir });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/Cannot read the input .*nope\.jsonl: no such file/);
    writeInput(dir, items(['a']));
    const same = await runCli(['batch', 'in.jsonl', '-o', 'in.jsonl'], { env: env(server), cwd: dir });
    expect(same.code).toBe(2);
    expect(same.stderr).toContain('bridle: --out in.jsonl is the input file in.jsonl');
    const noOut = await runCli(['batch', 'in.jsonl'], { env: env(server), cwd: dir });
    expect(noOut.code).toBe(2);
    expect(noOut.stderr).toContain("required option '-o, --out <file>' not specified");
  });

  it('refuses an --out that is the input under another name: symlink, hard link, /proc/self/cwd, ./x/../', async () => {
    server = await fakeOpenAIServer([]);
    const dir = tempDir();
    writeInput(dir, items(['a']));
    const before = readFileSync(join(dir, 'in.jsonl'), 'utf8');
    symlinkSync(join(dir, 'in.jsonl'), join(dir, 'link.jsonl'));
    linkSync(join(dir, 'in.jsonl'), join(dir, 'hard.jsonl'));
    for (const out of ['link.jsonl', 'hard.jsonl', '/proc/self/cwd/in.jsonl', join(dir, '.', 'in.jsonl')]) {
      const result = await runCli(['batch', 'in.jsonl', '-o', out], { env: env(server), cwd: dir });
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(
        `bridle: --out ${out} is the input file in.jsonl (the same file under another name)`,
      );
    }
    // The other way round too: the input named through the link, --out the real file.
    const reverse = await runCli(['batch', 'link.jsonl', '-o', 'in.jsonl'], { env: env(server), cwd: dir });
    expect(reverse.code).toBe(2);
    expect(readFileSync(join(dir, 'in.jsonl'), 'utf8')).toBe(before);
    expect(server.requests).toHaveLength(0);
  });
});
