import { argumentsMatch } from './arguments-match';
import { preview } from './shorten';
import type { EvalToolCall, ExpectedToolCall, SyncScorer } from './types';

const describe = (call: ExpectedToolCall | EvalToolCall) =>
  call.arguments === undefined ? call.name : `${call.name} ${preview(call.arguments, 80)}`;

const fits = (expected: ExpectedToolCall, actual: EvalToolCall) =>
  expected.name === actual.name && argumentsMatch(expected.arguments, actual.arguments);

/** Pairs each expected call with a distinct actual call it fits (greedy, in order); returns the unpaired. */
function pairUp(expected: readonly ExpectedToolCall[], actual: readonly EvalToolCall[]) {
  const free = [...actual];
  const missing: ExpectedToolCall[] = [];
  for (const call of expected) {
    const index = free.findIndex((candidate) => fits(call, candidate));
    if (index === -1) missing.push(call);
    else free.splice(index, 1);
  }
  return { missing, extra: free };
}

/**
 * `toolTrajectory(expected?)`: compares the run's tool calls with the expected ones (default: the case's
 * `expected.tools` and `expected.toolsOrder`), arguments matched partially (see `argumentsMatch`).
 * `exact`: the share of positions that fit, 1 only when the same calls come in the same order and there are no
 * others; `any`: the fitted calls over the larger of the two counts; `subset`: the share of expected calls
 * found among the run's. The reason names the first call that is missing, extra or out of place.
 */
export function toolTrajectory(expected?: {
  tools: readonly ExpectedToolCall[];
  order?: 'exact' | 'any' | 'subset';
}): SyncScorer {
  return {
    name: 'toolTrajectory',
    score(run, testCase) {
      const tools = expected?.tools ?? testCase.expected?.tools;
      if (tools === undefined) return undefined;
      const order = expected?.order ?? testCase.expected?.toolsOrder ?? 'exact';
      const actual = run.calls;
      if (order === 'exact') {
        const length = Math.max(tools.length, actual.length);
        if (length === 0) return { score: 1, reason: 'no tool calls, as expected' };
        let fitted = 0;
        let first: string | undefined;
        for (let index = 0; index < length; index++) {
          const want = tools[index];
          const got = actual[index];
          if (want !== undefined && got !== undefined && fits(want, got)) fitted++;
          else
            first ??=
              want === undefined
                ? `call ${index + 1} ${describe(got as EvalToolCall)} was not expected`
                : got === undefined
                  ? `call ${index + 1} ${describe(want)} was not made`
                  : `call ${index + 1} was ${describe(got)}, expected ${describe(want)}`;
        }
        return first === undefined
          ? { score: 1, reason: `the ${tools.length} expected tool calls, in order` }
          : { score: fitted / length, reason: first };
      }
      const { missing, extra } = pairUp(tools, actual);
      if (order === 'subset') {
        const score = tools.length === 0 ? 1 : (tools.length - missing.length) / tools.length;
        return missing.length === 0
          ? { score, reason: `all ${tools.length} expected tool calls were made` }
          : {
              score,
              reason: `${describe(missing[0] as ExpectedToolCall)} was not made (${tools.length - missing.length} of ${tools.length} found)`,
            };
      }
      const length = Math.max(tools.length, actual.length);
      const score = length === 0 ? 1 : (tools.length - missing.length) / length;
      if (missing.length === 0 && extra.length === 0)
        return { score, reason: `the ${tools.length} expected tool calls, in any order` };
      return {
        score,
        reason:
          missing.length > 0
            ? `${describe(missing[0] as ExpectedToolCall)} was not made`
            : `${describe(extra[0] as EvalToolCall)} was not expected`,
      };
    },
  };
}
