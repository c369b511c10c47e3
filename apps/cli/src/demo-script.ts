import type { ModelResponse } from '@bridle/protocol';

/** Tool names the scripted demo session calls (the command tool's name comes from `commandTool`). */
export interface DemoToolNames {
  command: string;
}

const BUGGY = 'return total / (values.length - 1);';
const FIXED = 'return total / values.length;';

function usage(inputTokens: number, outputTokens: number) {
  return { inputTokens, outputTokens };
}

/**
 * The responses of the scripted model in `bridle demo`: run 1 fixes the failing `mean()` test (with one
 * invalid call on the way), run 2 asks for more tool calls than the budget allows.
 */
export function demoScript(names: DemoToolNames): ModelResponse[] {
  return [
    {
      content: "I'll start by looking at the project layout.",
      toolCalls: [{ id: 'call_1', name: 'list_directory', arguments: {} }],
      usage: usage(412, 18),
    },
    {
      content: 'A stats module with tests. Let me run them to see what fails.',
      toolCalls: [{ id: 'call_2', name: names.command, arguments: { command: 'test' } }],
      usage: usage(538, 22),
    },
    {
      content: 'Two tests of mean() fail. Let me read it.',
      toolCalls: [{ id: 'call_3', name: 'read_file', arguments: { path: 'src/stats.js' } }],
      usage: usage(1290, 20),
    },
    {
      content: 'mean() divides by one less than the count. Fixing the divisor.',
      // Wrong argument names: the registry rejects the call before it reaches the tool.
      toolCalls: [
        { id: 'call_4', name: 'edit_file', arguments: { path: 'src/stats.js', find: BUGGY, replace: FIXED } },
      ],
      usage: usage(1544, 41),
    },
    {
      content: 'That call used the wrong argument names; edit_file takes oldText and newText.',
      toolCalls: [
        { id: 'call_5', name: 'edit_file', arguments: { path: 'src/stats.js', oldText: BUGGY, newText: FIXED } },
      ],
      usage: usage(1671, 44),
    },
    {
      content: 'Running the tests again.',
      toolCalls: [{ id: 'call_6', name: names.command, arguments: { command: 'test' } }],
      usage: usage(1752, 16),
    },
    {
      content:
        'Fixed: mean() divided the total by `values.length - 1` instead of `values.length`. All 4 tests pass now.',
      usage: usage(2210, 35),
    },
    {
      content: 'Reviewing every file at once.',
      toolCalls: [
        { id: 'call_7', name: 'read_file', arguments: { path: 'src/stats.js' } },
        { id: 'call_8', name: 'read_file', arguments: { path: 'test/stats.test.js' } },
        { id: 'call_9', name: 'read_file', arguments: { path: 'package.json' } },
      ],
      usage: usage(2298, 60),
    },
  ];
}
