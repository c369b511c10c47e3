import type { Tool, ToolCall } from '@bridle/protocol';
import { describe, expect, it } from 'vitest';
import { createApprover } from '../src/approval-prompt';
import { createStyle } from '../src/style';

const tool = (name: string) => ({ name, description: '', parameters: {}, execute: () => '' }) as Tool;
const call = (id: string, name: string, args: unknown = {}): ToolCall => ({ id, name, arguments: args });

function setup(
  answers: (string | undefined)[],
  options: { signal?: AbortSignal; policy?: 'ask' | 'yes' | 'deny' } = {},
) {
  const questions: string[] = [];
  let stderr = '';
  const pending: ((answer: string | undefined) => void)[] = [];
  const approve = createApprover({
    ...options,
    stderr: {
      write: (text: string) => {
        stderr += text;
        return true;
      },
    },
    style: createStyle(false),
    ask: (question) => {
      questions.push(question);
      if (answers.length > 0) return Promise.resolve(answers.shift());
      return new Promise((resolve) => pending.push(resolve));
    },
  });
  return { approve, questions, stderr: () => stderr, pending };
}

describe('createApprover', () => {
  it('asks one question at a time, in call order, even when the loop asks for a whole batch at once', async () => {
    const { approve, questions } = setup(['y', 'n', 'yes']);
    const decisions = await Promise.all([
      approve(call('1', 'write_file', { path: 'a' }), tool('write_file')),
      approve(call('2', 'edit_file', { path: 'b' }), tool('edit_file')),
      approve(call('3', 'run_command', { command: 'test' }), tool('run_command')),
    ]);
    expect(decisions).toEqual([true, false, true]);
    expect(questions).toEqual([
      '? write_file {"path":"a"}\n  Allow? [y] yes  [n] no  [a] always for write_file  [e] show all: ',
      '? edit_file {"path":"b"}\n  Allow? [y] yes  [n] no  [a] always for edit_file  [e] show all: ',
      '? run_command {"command":"test"}\n  Allow? [y] yes  [n] no  [a] always for run_command  [e] show all: ',
    ]);
  });

  it('`a` approves later calls of that tool without asking; other tools still ask', async () => {
    const { approve, questions } = setup(['A', 'n']);
    expect(await approve(call('1', 'write_file'), tool('write_file'))).toBe(true);
    expect(await approve(call('2', 'write_file'), tool('write_file'))).toBe(true);
    expect(await approve(call('3', 'edit_file'), tool('edit_file'))).toBe(false);
    expect(questions).toHaveLength(2);
  });

  it('an unknown answer and end of input deny, saying so; Enter alone asks again', async () => {
    const { approve, stderr, questions } = setup(['', 'maybe', undefined]);
    expect(await approve(call('1', 'write_file'), tool('write_file'))).toBe(false);
    expect(questions).toHaveLength(2);
    expect(questions[1]).toBe('  Allow? [y] yes  [n] no  [a] always for write_file  [e] show all: ');
    expect(await approve(call('2', 'write_file'), tool('write_file'))).toBe(false);
    expect(stderr()).toBe('  denied write_file\n'.repeat(2));
  });

  it('asks with the single keys y n a e ? v, and shows the preview (short, then whole after e)', async () => {
    const keys: (readonly string[])[] = [];
    const questions: string[] = [];
    let stderr = '';
    const answers = ['e', '?', 'y'];
    const approve = createApprover({
      stderr: {
        write: (text: string) => {
          stderr += text;
          return true;
        },
      },
      style: createStyle(false),
      preview: (name, args, full) => `${name} ${JSON.stringify(args)} ${full ? 'whole' : 'short'}`,
      ask: (question, answerKeys) => {
        questions.push(question);
        keys.push(answerKeys);
        return Promise.resolve(answers.shift());
      },
    });
    expect(await approve(call('1', 'edit_file', { path: 'a' }), tool('edit_file'))).toBe(true);
    expect(keys[0]).toEqual(['y', 'n', 'a', 'e', '?', 'v']);
    expect(questions[0]).toBe(
      '? edit_file {"path":"a"}\nedit_file {"path":"a"} short\n  Allow? [y] yes  [n] no  [a] always for edit_file  [e] show all: ',
    );
    expect(questions).toHaveLength(3);
    expect(stderr).toBe('{\n  "path": "a"\n}\nedit_file {"path":"a"} whole\n'.repeat(2));
  });

  it('Ctrl-C (the run signal) answers an open question with a denial', async () => {
    const controller = new AbortController();
    const { approve, pending } = setup([], { signal: controller.signal });
    const decision = approve(call('1', 'write_file'), tool('write_file'));
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(pending).toHaveLength(1);
    controller.abort();
    expect(await decision).toBe(false);
  });

  it('escapes control characters of the model-given arguments and tool name', async () => {
    const { approve, questions } = setup(['n']);
    await approve(call('1', 'x', { text: '\u009b2J' }), tool('x\u001b[2J'));
    expect(questions[0]).not.toContain('\u001b');
    expect(questions[0]).not.toContain('\u009b');
    expect(questions[0]).toContain('\\u009b2J');
  });

  it('shows every key, a long value shortened in its middle; `v` (as `e`) prints the whole arguments and asks again', async () => {
    const { approve, questions, stderr } = setup(['v', 'y']);
    const content = `${'a'.repeat(150)}${'b'.repeat(150)}`;
    expect(await approve(call('1', 'write_file', { content, path: 'x/y.txt' }), tool('write_file'))).toBe(true);
    const allow = 'Allow? [y] yes  [n] no  [a] always for write_file  [e] show all: ';
    expect(questions).toEqual([
      `? write_file {"content":"${'a'.repeat(100)}…[100 characters]…${'b'.repeat(100)}","path":"x/y.txt"}\n  ${allow}`,
      `  ${allow}`,
    ]);
    expect(stderr()).toBe(`{\n  "content": "${content}",\n  "path": "x/y.txt"\n}\n`);
  });

  it('policy yes approves and deny denies, without asking', async () => {
    const yes = setup([], { policy: 'yes' });
    expect(await yes.approve(call('1', 'write_file'), tool('write_file'))).toBe(true);
    const deny = setup([], { policy: 'deny' });
    expect(await deny.approve(call('1', 'write_file'), tool('write_file'))).toBe(false);
    expect(await deny.approve(call('2', 'write_file'), tool('write_file'))).toBe(false);
    expect(deny.stderr()).toBe('bridle: denied write_file: the approval policy of your settings is "deny".\n');
    expect([...yes.questions, ...deny.questions]).toEqual([]);
  });

  it('with rules: a covering rule approves without asking (also without a terminal), saying which rule', async () => {
    let stderr = '';
    const approve = createApprover({
      stderr: {
        write: (text: string) => {
          stderr += text;
          return true;
        },
      },
      style: createStyle(false),
      rules: fakeRules(['edit_file']),
    });
    expect(await approve(call('1', 'edit_file', { path: 'src/a.ts' }), tool('edit_file'))).toBe(true);
    expect(await approve(call('2', 'write_file', { path: 'a' }), tool('write_file'))).toBe(false);
    expect(stderr).toBe(
      '  edit_file allowed by your rule edit_file\nbridle: denied write_file: it needs approval and there is no terminal to ask on. Pass --yes to approve every tool call, or run on a terminal to be asked.\n',
    );
  });

  it('with rules: `a` allows the tool for the process, then asks whether to remember the suggested rule', async () => {
    const rules = fakeRules([]);
    const questions: string[] = [];
    const answers = ['a', 'y', 'a', 'n'];
    let stderr = '';
    const approve = createApprover({
      stderr: {
        write: (text: string) => {
          stderr += text;
          return true;
        },
      },
      style: createStyle(false),
      rules,
      ask: (question, keys) => {
        questions.push(`${question} ${keys.join('')}`);
        return Promise.resolve(answers.shift());
      },
    });
    expect(await approve(call('1', 'edit_file', { path: 'src/a.ts' }), tool('edit_file'))).toBe(true);
    expect(questions[1]).toBe('  Remember edit_file(src/**) for this folder? [y] yes  [n] this session only:  yn');
    expect(rules.remembered).toEqual(['edit_file(src/**)']);
    expect(stderr).toBe("  remembered; forget it with: bridle permissions --revoke 'edit_file(src/**)'\n");
    // Allowed for the process: not asked again, except on a path no rule covers.
    expect(await approve(call('2', 'edit_file', { path: 'lib/b.ts' }), tool('edit_file'))).toBe(true);
    expect(questions).toHaveLength(2);
    expect(await approve(call('3', 'edit_file', { path: '.env' }), tool('edit_file'))).toBe(true);
    expect(questions).toHaveLength(3);
    expect(questions[2]).toContain('? edit_file {"path":".env"}');
    // No rule can be suggested for a protected path: no second question.
    expect(answers).toEqual(['n']);
  });
});

function fakeRules(initial: string[]) {
  const allowed = new Set(initial);
  const remembered: string[] = [];
  const protectedPath = (args: unknown) => (args as { path?: string }).path === '.env';
  return {
    remembered,
    match: async (toolCall: ToolCall) =>
      allowed.has(toolCall.name) && !protectedPath(toolCall.arguments) ? toolCall.name : undefined,
    suggest: async (toolCall: ToolCall) => (protectedPath(toolCall.arguments) ? undefined : `${toolCall.name}(src/**)`),
    allow: (rule: string) => {
      allowed.add(rule);
    },
    remember: async (rule: string) => {
      remembered.push(rule);
    },
  };
}
