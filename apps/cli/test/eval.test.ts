import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openStore } from '@bridle/store';
import { type FakeProviderRequest, type FakeProviderServer, fakeOpenAIServer } from '@bridle/testing';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cliEnv, fakeOpenAIEnv, requireBuild, runCli, startCli, tempDir, until } from './cli-process';
import { sqliteProblem } from './sqlite-probe';

beforeAll(requireBuild);

const servers: FakeProviderServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

async function fake(script: Parameters<typeof fakeOpenAIServer>[0]): Promise<FakeProviderServer> {
  const server = await fakeOpenAIServer(script);
  servers.push(server);
  return server;
}

const sqliteError = await sqliteProblem('bridle eval tests');

const usage = { inputTokens: 10, outputTokens: 5 };
const modelOf = (request: FakeProviderRequest) => (request.body as { model: string }).model;
const promptOf = (request: FakeProviderRequest) => {
  const body = request.body as { input?: { content?: unknown }[]; messages?: { content?: unknown }[] };
  const first = (body.input ?? body.messages ?? []).find((message) => typeof message.content === 'string');
  return JSON.stringify(first?.content ?? body);
};

const CASES = [
  { id: 'sum', input: 'What is 2 + 2?', expected: { answer: '4' } },
  { id: 'capital', input: 'Capital of France?', expected: { contains: 'Paris', regex: '/^paris/i' } },
  { id: 'json', input: 'Give the total as JSON', expected: { json: { type: 'object', required: ['total'] } } },
];

function setup(lines: unknown[] = CASES): { cwd: string; store: string } {
  const cwd = tempDir('bridle-eval-');
  writeFileSync(
    join(cwd, 'cases.jsonl'),
    `${lines.map((line) => (typeof line === 'string' ? line : JSON.stringify(line))).join('\n')}\n`,
  );
  return { cwd, store: `sqlite:${join(cwd, 'runs.db')}` };
}

/** `good` answers every case right; `bad` gets the sum wrong and answers the JSON case in prose. */
function answer(request: FakeProviderRequest) {
  const good = modelOf(request) === 'good';
  const prompt = promptOf(request);
  if (prompt.includes('2 + 2')) return { content: good ? '4' : '5', usage };
  if (prompt.includes('Capital')) return { content: 'Paris, of course', usage };
  return { content: good ? '{"total": 4}' : 'The total is 4.', usage };
}

const result = (cwd: string, file = 'out.json') => JSON.parse(readFileSync(join(cwd, file), 'utf8'));

describe.skipIf(sqliteError !== undefined)('bridle eval', { timeout: 180_000 }, () => {
  it('runs every case on two models and gives the known score matrix, the report and the JSON result; exit 1 under --fail-under', async () => {
    const server = await fake(answer);
    const { cwd, store } = setup();
    const run = await runCli(
      ['eval', 'cases.jsonl', '-m', 'openai:good', '-m', 'openai:bad', '--store', store, '-o', 'out.json'],
      {
        cwd,
        env: fakeOpenAIEnv(server),
      },
    );
    expect(run.code).toBe(1);
    expect(server.requests.map(modelOf).sort()).toEqual(['bad', 'bad', 'bad', 'good', 'good', 'good']);
    const out = result(cwd);
    expect(out).toMatchObject({
      version: 1,
      complete: true,
      dataset: 'cases.jsonl',
      variants: ['openai:good', 'openai:bad'],
    });
    const matrix = Object.fromEntries(
      out.cases.map((entry: { variant: string; caseId: string; scores: { scorer: string; score: number }[] }) => [
        `${entry.variant}/${entry.caseId}`,
        Object.fromEntries(entry.scores.map((score) => [score.scorer, score.score])),
      ]),
    );
    expect(matrix).toEqual({
      'openai:good/sum': { exactAnswer: 1, completedWithin: 1 },
      'openai:good/capital': { contains: 1, matches: 1, completedWithin: 1 },
      'openai:good/json': { jsonSchema: 1, completedWithin: 1 },
      'openai:bad/sum': { exactAnswer: 0, completedWithin: 1 },
      'openai:bad/capital': { contains: 1, matches: 1, completedWithin: 1 },
      'openai:bad/json': { jsonSchema: 0, completedWithin: 1 },
    });
    expect(run.stdout).toContain(
      [
        'variant      scorer           passed  rate  mean  errors',
        'openai:good  exactAnswer      1/1     100%  1.00  0',
        '             contains         1/1     100%  1.00  0',
        '             matches          1/1     100%  1.00  0',
        '             jsonSchema       1/1     100%  1.00  0',
        '             completedWithin  3/3     100%  1.00  0',
        'openai:bad   exactAnswer      0/1     0%    0.00  0',
        '             contains         1/1     100%  1.00  0',
        '             matches          1/1     100%  1.00  0',
        '             jsonSchema       0/1     0%    0.00  0',
        '             completedWithin  3/3     100%  1.00  0',
      ].join('\n'),
    );
    expect(run.stdout).toMatch(/^openai:good {2}3 {6}3 {7}3 {10}30\/15 {10}\$0 {4}\d+m?s/m);
    expect(run.stdout).toContain(
      `openai:bad · sum · exactAnswer 0.00: the answer "5" is not "4" (run eval.${out.evalId}.2.sum)`,
    );
    expect(run.stderr).toContain(
      '✗ under --fail-under 1:\n  openai:bad exactAnswer 0% (0/1) < 100%\n  openai:bad jsonSchema 0% (0/1) < 100%\n',
    );
    expect(run.stderr).toMatch(/^\[\d\/6\] ✗ openai:bad · sum · exactAnswer: the answer "5" is not "4"$/m);

    // Every case is a journaled run tagged with the eval.
    const opened = await openStore(store);
    const tagged = await opened.listRuns({ sessionId: `eval:${out.evalId}` });
    await opened.close();
    expect(tagged.map((row) => row.runId).sort()).toEqual(
      ['1.capital', '1.json', '1.sum', '2.capital', '2.json', '2.sum'].map((id) => `eval.${out.evalId}.${id}`),
    );

    const lenient = await runCli(
      [
        'eval',
        'cases.jsonl',
        '-m',
        'openai:good',
        '-m',
        'openai:bad',
        '--store',
        store,
        '--fail-under',
        '0',
        '--scorer',
        'contains',
      ],
      { cwd, env: fakeOpenAIEnv(server) },
    );
    expect(lenient.code).toBe(0);
    expect(lenient.stderr).toMatch(/✓ every variant and scorer at or above 0% · eval \w+\n$/);
  });

  it('names a variant without the credentials of its model id', async () => {
    const server = await fake(answer);
    const { cwd, store } = setup([CASES[0]]);
    const modelId = `openai-compatible:${server.url.replace('//', '//user:sk-secret-123@')}/v1#good`;
    const run = await runCli(['eval', 'cases.jsonl', '-m', modelId, '--store', store, '-o', 'out.json'], {
      cwd,
      env: fakeOpenAIEnv(server),
    });
    const name = `openai-compatible:${server.url}/v1#good`;
    expect(result(cwd).variants).toEqual([name]);
    expect(run.stdout).toContain(name);
    expect(`${run.stdout}${run.stderr}${readFileSync(join(cwd, 'out.json'), 'utf8')}`).not.toContain('sk-secret-123');
  });

  it('an LLM judge on any model, its cost shown apart', async () => {
    const server = await fake((request) =>
      modelOf(request) === 'judge'
        ? { content: '{"score": 0.8, "reason": "Correct and short."}', usage: { inputTokens: 100, outputTokens: 9 } }
        : answer(request),
    );
    const { cwd, store } = setup([CASES[0]]);
    const run = await runCli(
      [
        'eval',
        'cases.jsonl',
        '-m',
        'openai:good',
        '--judge',
        'openai:judge',
        '--rubric',
        'Correct arithmetic',
        '--scorer',
        'exactAnswer',
        '--store',
        store,
        '-o',
        'out.json',
      ],
      { cwd, env: fakeOpenAIEnv(server) },
    );
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('             llmJudge     1/1     100%  0.80  0');
    expect(result(cwd).cases[0].scores[1]).toEqual({
      scorer: 'llmJudge',
      score: 0.8,
      passed: true,
      reason: 'Correct and short.',
    });
    expect(result(cwd).cases[0].scoringUsage).toMatchObject({ inputTokens: 100, outputTokens: 9 });
    const judged = server.requests.find((request) => modelOf(request) === 'judge');
    expect(JSON.stringify(judged?.body)).toContain('Correct arithmetic');
  });

  it('a bad dataset line runs nothing: exit 2 naming the line; usage errors exit 2', async () => {
    const server = await fake(answer);
    const { cwd, store } = setup([CASES[0], '{"input": "x", "expected": {"toolsOrder": "sorted"}}', '{"id": ']);
    const env = fakeOpenAIEnv(server);
    const bad = await runCli(['eval', 'cases.jsonl', '--store', store], { cwd, env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(
      'cases.jsonl: 2 bad cases; nothing was run (fix them and run again):\n  cases.jsonl:2: "expected.toolsOrder" must be "exact", "any" or "subset", got "sorted"\n  cases.jsonl:3: not valid JSON',
    );
    const usageErrors: [string[], string][] = [
      [['eval', '--store', store], 'bridle eval needs a dataset (a JSONL file of cases) or --from-runs <filter>.'],
      [['eval', 'missing.jsonl', '--store', store], 'Cannot read the dataset missing.jsonl: no such file.'],
      [
        ['eval', '--from-runs', 'last:1', '--replay', '-m', 'openai:good', '--store', store],
        '--replay calls no model: leave out --model, --queue and --judge.',
      ],
      [
        ['eval', 'cases.jsonl', '--replay', '--store', store],
        '--replay re-runs recorded runs: give --from-runs <filter>',
      ],
      [
        ['eval', 'cases.jsonl', '--scorer', 'exact', '--store', store],
        'Unknown scorer "exact": use exactAnswer, contains, matches, jsonSchema, toolTrajectory, completedWithin',
      ],
      [
        ['eval', 'cases.jsonl', '--judge', 'openai:judge', '--store', store],
        '--judge <model-id> and --rubric <text> go together',
      ],
      [
        ['eval', 'cases.jsonl', '--fail-under', '1.5', '--store', store],
        'expected a number from 0 to 1 such as 0.9, got "1.5"',
      ],
      [
        ['eval', '--from-runs', 'yesterday', '--store', store],
        '--from-runs yesterday: expected last:N, session:<id>, run:<id>[,<id>...] or eval:<evalId>.',
      ],
      [['eval', '--from-runs', 'last:3', '--store', store], '--from-runs last:3: no recorded run matches in sqlite:'],
    ];
    for (const [args, message] of usageErrors) {
      const outcome = await runCli(args, { cwd, env });
      expect({ args, code: outcome.code }).toEqual({ args, code: 2 });
      expect(outcome.stderr).toContain(message);
    }
    expect(server.requests).toHaveLength(0);
  });

  it('resumes after Ctrl-C: the cases that ended are scored from the journal, only the rest call the model', async () => {
    let hang = true;
    const server = await fake((request) =>
      promptOf(request).includes('Capital') && hang ? { type: 'hang' } : answer(request),
    );
    const fakeServer = server;
    const { cwd, store } = setup();
    const args = ['eval', 'cases.jsonl', '-m', 'openai:good', '--store', store, '-o', 'out.json', '--concurrency', '1'];
    const first = startCli(args, { cwd, env: fakeOpenAIEnv(server) });
    await first.waitFor('[1/3]', 'stderr');
    await until(() => fakeServer.requests.length === 2);
    first.child.kill('SIGINT');
    const interrupted = await first.exited;
    expect(interrupted.code).toBe(130);
    expect(interrupted.stderr).toContain(
      'Interrupted: 1 of 3 scored. Run the same command again to resume (the runs that ended are not run again).',
    );
    const partial = result(cwd);
    expect(partial.complete).toBe(false);
    expect(partial.cases.map((entry: { caseId: string }) => entry.caseId)).toEqual(['sum']);

    hang = false;
    const before = server.requests.length;
    const second = await runCli(args, { cwd, env: fakeOpenAIEnv(server) });
    expect(second.code).toBe(0);
    expect(second.stderr).toContain(`eval ${partial.evalId} (resumed)`);
    expect(second.stderr).toMatch(/✓ openai:good · sum \(completed, from the journal\)/);
    expect(server.requests.slice(before).map(promptOf).sort()).toEqual([
      '"Capital of France?"',
      '"Give the total as JSON"',
    ]);
    const final = result(cwd);
    expect(final).toMatchObject({ evalId: partial.evalId, complete: true });
    expect(final.cases.map((entry: { caseId: string; runId: string }) => [entry.caseId, entry.runId])).toEqual([
      ['sum', `eval.${partial.evalId}.1.sum`],
      ['capital', `eval.${partial.evalId}.1.capital.2`],
      ['json', `eval.${partial.evalId}.1.json`],
    ]);

    // A finished result in --out starts a new eval.
    const third = await runCli(args, { cwd, env: fakeOpenAIEnv(server) });
    expect(third.code).toBe(0);
    expect(result(cwd).evalId).not.toBe(partial.evalId);
  });

  it('--from-runs --replay re-runs recorded runs offline; a changed tool result fails the case, naming it', async () => {
    const script = [
      { content: '', toolCalls: [{ id: 'c1', name: 'read_file', arguments: { path: 'notes.txt' } }], usage },
      { content: 'The answer is 42.', usage },
      { content: 'Hello!', usage },
    ];
    const server = await fake(script);
    const { cwd, store } = setup();
    mkdirSync(join(cwd, 'project'));
    writeFileSync(join(cwd, 'project', 'notes.txt'), 'the answer is 42\n');
    const recordedA = await runCli(['run', 'What is the answer?', '-w', 'project', '--store', store, '--json'], {
      cwd,
      env: fakeOpenAIEnv(server),
    });
    const recordedB = await runCli(['run', 'Say hello', '--store', store, '--json'], {
      cwd,
      env: fakeOpenAIEnv(server),
    });
    expect([recordedA.code, recordedB.code]).toEqual([0, 0]);
    const runA = (JSON.parse(recordedA.stdout) as { runId: string }).runId;
    const runB = (JSON.parse(recordedB.stdout) as { runId: string }).runId;
    // No key and no endpoint from here on: a model call would fail.
    const env = cliEnv();
    const same = await runCli(
      ['eval', '--from-runs', 'last:2', '--replay', '-w', 'project', '--store', store, '-o', 'replay.json'],
      { cwd, env },
    );
    expect(same.stderr).toContain('✓ every variant and scorer at or above 100%');
    expect(same.code).toBe(0);
    expect(
      result(cwd, 'replay.json').cases.map((entry: { caseId: string; scores: unknown[] }) => [
        entry.caseId,
        entry.scores,
      ]),
    ).toEqual([
      [runA, [{ scorer: 'replay', score: 1, passed: true, reason: 'the replay matches the recording' }]],
      [runB, [{ scorer: 'replay', score: 1, passed: true, reason: 'the replay matches the recording' }]],
    ]);

    writeFileSync(join(cwd, 'project', 'notes.txt'), 'the answer is 43\n');
    // The replay's own runs are not recorded runs: last:2 still names the two runs above.
    const changed = await runCli(['eval', '--from-runs', 'last:2', '--replay', '-w', 'project', '--store', store], {
      cwd,
      env,
    });
    expect(changed.code).toBe(1);
    expect(changed.stdout).toMatch(
      new RegExp(
        `^ {2}replay · ${runA} · replay 0\\.00: the replay differs: step 1, call c1 read_file: the result differs: recorded .*42.*, now .*43`,
        'm',
      ),
    );
    expect(changed.stdout).not.toContain(`replay · ${runB} ·`);
    expect(changed.stderr).toContain('✗ under --fail-under 1:\n  replay replay 50% (1/2) < 100%');
    const byId = await runCli(['eval', '--from-runs', `run:${runB}`, '--replay', '--store', store], { cwd, env });
    expect(byId.code).toBe(0);
    expect(server.requests).toHaveLength(3);
  });

  it('eval compare names the cases that got worse and better, with the reasons; exit 1 when one got worse', async () => {
    const server = await fake(answer);
    const { cwd, store } = setup();
    const env = fakeOpenAIEnv(server);
    expect(
      (await runCli(['eval', 'cases.jsonl', '-m', 'openai:good', '--store', store, '-o', 'a.json'], { cwd, env })).code,
    ).toBe(0);
    expect(
      (await runCli(['eval', 'cases.jsonl', '-m', 'openai:bad', '--store', store, '-o', 'b.json'], { cwd, env })).code,
    ).toBe(1);
    const compared = await runCli(['eval', 'compare', 'a.json', 'b.json'], { cwd, env });
    expect(compared.code).toBe(1);
    const a = result(cwd, 'a.json').evalId;
    const b = result(cwd, 'b.json').evalId;
    expect(compared.stdout).toBe(
      [
        `Compare ${a} → ${b}: 0 better, 2 worse, 5 unchanged`,
        '',
        'variant                   scorer           rate A  rate B  mean A  mean B',
        'openai:good → openai:bad  exactAnswer      100%    0%      1.00    0.00',
        'openai:good → openai:bad  contains         100%    100%    1.00    1.00',
        'openai:good → openai:bad  matches          100%    100%    1.00    1.00',
        'openai:good → openai:bad  jsonSchema       100%    0%      1.00    0.00',
        'openai:good → openai:bad  completedWithin  100%    100%    1.00    1.00',
        '',
        '  worse   json · jsonSchema 1.00 → 0.00: the answer is not JSON: "The total is 4." (was: the output is valid against the schema)',
        '  worse   sum · exactAnswer 1.00 → 0.00: the answer "5" is not "4" (was: the answer is "4")',
        '',
      ].join('\n'),
    );
    const back = await runCli(['eval', 'compare', 'b.json', 'a.json', '--json'], { cwd, env });
    expect(back.code).toBe(0);
    expect(JSON.parse(back.stdout)).toMatchObject({ better: 2, worse: 0 });
    const missing = await runCli(['eval', 'compare', 'a.json', 'nope.json'], { cwd, env });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('Cannot read nope.json: no such file. Give the files bridle eval --out wrote.');
  });
});
