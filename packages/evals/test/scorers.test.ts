import type { RunEvent } from '@bridle/protocol';
import { describe, expect, it } from 'vitest';
import {
  completedWithin,
  contains,
  type EvalCase,
  type EvalRun,
  exactAnswer,
  jsonSchema,
  matches,
  toolTrajectory,
} from '../src/index';

function run(overrides: Partial<EvalRun> = {}): EvalRun {
  return {
    runId: 'r1',
    variant: 'v',
    status: 'completed',
    answer: 'The answer is 4.',
    steps: 2,
    toolCalls: 1,
    calls: [],
    usage: { inputTokens: 10, outputTokens: 5 },
    durationMs: 100,
    events: [] as RunEvent[],
    ...overrides,
  };
}
const testCase = (expected: EvalCase['expected'] = {}): EvalCase => ({ id: 'c1', input: 'What is 2 + 2?', expected });
const call = (name: string, args: unknown) => ({ name, arguments: args, isError: false, result: 'ok' });

describe('exactAnswer', () => {
  it('scores 1 for the same answer after trimming, 0 otherwise, and does not apply without an expected answer', () => {
    expect(exactAnswer().score(run({ answer: ' 4\n' }), testCase({ answer: '4' }))).toEqual({
      score: 1,
      reason: 'the answer is "4"',
    });
    expect(exactAnswer().score(run({ answer: '5' }), testCase({ answer: '4' }))).toEqual({
      score: 0,
      reason: 'the answer "5" is not "4"',
    });
    expect(exactAnswer().score(run({ answer: undefined, status: 'step_limit' }), testCase({ answer: '4' }))).toEqual({
      score: 0,
      reason: 'no answer (the run ended step_limit); expected "4"',
    });
    expect(exactAnswer().score(run(), testCase())).toBeUndefined();
    expect(exactAnswer('The answer is 4.').score(run(), testCase())).toMatchObject({ score: 1 });
  });

  it('keeps its reason bounded for a huge answer', () => {
    const result = exactAnswer().score(run({ answer: 'x'.repeat(1_000_000) }), testCase({ answer: '4' }));
    expect(result?.score).toBe(0);
    expect(result?.reason.length).toBeLessThan(200);
    expect(result?.reason).toContain('characters]…');
  });
});

describe('contains', () => {
  it('scores the share of expected strings found, naming the missing ones', () => {
    expect(contains().score(run(), testCase({ contains: 'is 4' }))).toEqual({
      score: 1,
      reason: 'the answer contains "is 4"',
    });
    expect(contains().score(run(), testCase({ contains: ['answer', 'five', 'six', '4'] }))).toEqual({
      score: 0.5,
      reason: 'the answer lacks "five", "six" (2 of 4 found)',
    });
    expect(contains().score(run(), testCase({ contains: 'ANSWER' }))?.score).toBe(0);
    expect(contains().score(run(), testCase())).toBeUndefined();
  });
});

describe('matches', () => {
  it('matches "pattern" and "/pattern/flags" and a RegExp, also a global one twice', () => {
    expect(matches().score(run(), testCase({ regex: 'is \\d+' }))).toEqual({
      score: 1,
      reason: 'the answer matches /is \\d+/',
    });
    expect(matches().score(run(), testCase({ regex: '/^the ANSWER/i' }))?.score).toBe(1);
    expect(matches().score(run(), testCase({ regex: '^4$' }))).toEqual({
      score: 0,
      reason: 'the answer "The answer is 4." does not match /^4$/',
    });
    const global = matches(/4/g);
    expect(global.score(run(), testCase())?.score).toBe(1);
    expect(global.score(run(), testCase())?.score).toBe(1);
    expect(matches().score(run(), testCase())).toBeUndefined();
  });
});

describe('jsonSchema', () => {
  const schema = { type: 'object', properties: { total: { type: 'number' } }, required: ['total'] };
  it('validates the structured output, else the answer parsed as JSON (fenced too)', () => {
    expect(jsonSchema().score(run({ output: { total: 4 } }), testCase({ json: schema }))).toEqual({
      score: 1,
      reason: 'the output is valid against the schema',
    });
    expect(jsonSchema().score(run({ answer: '```json\n{"total": 4}\n```' }), testCase({ json: schema }))?.score).toBe(
      1,
    );
    expect(jsonSchema().score(run({ answer: '{"total": "4"}' }), testCase({ json: schema }))).toEqual({
      score: 0,
      reason: 'the output is not valid: $.total: must be number, got "4"',
    });
    expect(jsonSchema().score(run({ answer: 'four' }), testCase({ json: schema }))).toEqual({
      score: 0,
      reason: 'the answer is not JSON: "four"',
    });
    expect(jsonSchema().score(run(), testCase())).toBeUndefined();
  });
});

describe('toolTrajectory', () => {
  const calls = [
    call('search', { query: 'paris', limit: 5 }),
    call('read', { path: 'a.md' }),
    call('search', { query: 'rome' }),
  ];
  it('exact: same calls in the same order, arguments matched partially', () => {
    expect(
      toolTrajectory().score(
        run({ calls }),
        testCase({ tools: [{ name: 'search', arguments: { query: 'paris' } }, { name: 'read' }, { name: 'search' }] }),
      ),
    ).toEqual({ score: 1, reason: 'the 3 expected tool calls, in order' });
    expect(
      toolTrajectory().score(
        run({ calls }),
        testCase({ tools: [{ name: 'read' }, { name: 'search' }, { name: 'search' }] }),
      ),
    ).toEqual({ score: 1 / 3, reason: 'call 1 was search {"query":"paris","limit":5}, expected read' });
    expect(toolTrajectory().score(run({ calls }), testCase({ tools: [{ name: 'search' }, { name: 'read' }] }))).toEqual(
      {
        score: 2 / 3,
        reason: 'call 3 search {"query":"rome"} was not expected',
      },
    );
    expect(toolTrajectory().score(run({ calls: [] }), testCase({ tools: [] }))).toEqual({
      score: 1,
      reason: 'no tool calls, as expected',
    });
  });

  it('any: the same calls in any order; subset: at least these', () => {
    const any = testCase({
      tools: [{ name: 'read' }, { name: 'search', arguments: { query: 'rome' } }, { name: 'search' }],
      toolsOrder: 'any',
    });
    expect(toolTrajectory().score(run({ calls }), any)).toEqual({
      score: 1,
      reason: 'the 3 expected tool calls, in any order',
    });
    const fewer = testCase({ tools: [{ name: 'read' }], toolsOrder: 'any' });
    expect(toolTrajectory().score(run({ calls }), fewer)).toEqual({
      score: 1 / 3,
      reason: 'search {"query":"paris","limit":5} was not expected',
    });
    const subset = testCase({ tools: [{ name: 'read' }, { name: 'write' }], toolsOrder: 'subset' });
    expect(toolTrajectory().score(run({ calls }), subset)).toEqual({
      score: 0.5,
      reason: 'write was not made (1 of 2 found)',
    });
    const wrongArgs = testCase({ tools: [{ name: 'search', arguments: { query: 'oslo' } }], toolsOrder: 'subset' });
    expect(toolTrajectory().score(run({ calls }), wrongArgs)?.score).toBe(0);
  });
});

describe('completedWithin', () => {
  it('passes a completed run within the limits and names the first limit passed', () => {
    expect(completedWithin().score(run(), testCase())).toEqual({ score: 1, reason: 'completed in 2 steps' });
    expect(completedWithin({ steps: 1 }).score(run(), testCase())).toEqual({
      score: 0,
      reason: 'completed, but in 2 steps, over 1',
    });
    expect(
      completedWithin({ costUsd: 0.01 }).score(
        run({ usage: { inputTokens: 1, outputTokens: 1, costUsd: 0.02 } }),
        testCase(),
      ),
    ).toEqual({ score: 0, reason: 'completed, but in $0.020000, over $0.01' });
    expect(completedWithin().score(run({ status: 'step_limit', error: 'maxSteps 2 reached' }), testCase())).toEqual({
      score: 0,
      reason: 'the run ended step_limit: maxSteps 2 reached',
    });
  });

  it('refuses unknown or negative limits with a ConfigError naming them', () => {
    expect(() => completedWithin({ step: 1 } as never)).toThrow(
      'completedWithin: unknown limit "step" (known: steps, toolCalls, costUsd, durationMs).',
    );
    expect(() => completedWithin({ steps: -1 })).toThrow(
      'completedWithin: steps must be a non-negative number, got number -1.',
    );
  });
});
