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
      '? write_file {"path":"a"}\n  Allow? [y] yes  [n] no  [a] always for write_file: ',
      '? edit_file {"path":"b"}\n  Allow? [y] yes  [n] no  [a] always for edit_file: ',
      '? run_command {"command":"test"}\n  Allow? [y] yes  [n] no  [a] always for run_command: ',
    ]);
  });

  it('`a` approves later calls of that tool without asking; other tools still ask', async () => {
    const { approve, questions } = setup(['A', 'n']);
    expect(await approve(call('1', 'write_file'), tool('write_file'))).toBe(true);
    expect(await approve(call('2', 'write_file'), tool('write_file'))).toBe(true);
    expect(await approve(call('3', 'edit_file'), tool('edit_file'))).toBe(false);
    expect(questions).toHaveLength(2);
  });

  it('Enter, an unknown answer and end of input deny, saying so', async () => {
    const { approve, stderr } = setup(['', 'maybe', undefined]);
    expect(await approve(call('1', 'write_file'), tool('write_file'))).toBe(false);
    expect(await approve(call('2', 'write_file'), tool('write_file'))).toBe(false);
    expect(await approve(call('3', 'write_file'), tool('write_file'))).toBe(false);
    expect(stderr()).toBe('  denied write_file\n'.repeat(3));
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

  it('policy yes approves and deny denies, without asking', async () => {
    const yes = setup([], { policy: 'yes' });
    expect(await yes.approve(call('1', 'write_file'), tool('write_file'))).toBe(true);
    const deny = setup([], { policy: 'deny' });
    expect(await deny.approve(call('1', 'write_file'), tool('write_file'))).toBe(false);
    expect(await deny.approve(call('2', 'write_file'), tool('write_file'))).toBe(false);
    expect(deny.stderr()).toBe('bridle: denied write_file: the approval policy of your settings is "deny".\n');
    expect([...yes.questions, ...deny.questions]).toEqual([]);
  });
});
