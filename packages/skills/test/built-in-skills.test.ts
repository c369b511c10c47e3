import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, composeSkills, runAgent } from '@bridle/core';
import { ConfigError } from '@bridle/protocol';
import { scriptedModel } from '@bridle/testing';
import { Workspace } from '@bridle/workspace-tools';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { analystSkill } from '../src/analyst-skill';
import { assistantSkill } from '../src/assistant-skill';
import { codingSkill } from '../src/coding-skill';
import { defineSkill } from '../src/skill';
import { createToolbox } from '../src/toolbox';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'bridle-skills-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const names = (skill: { tools: readonly { name: string }[] }) => skill.tools.map((tool) => tool.name);

describe('built-in skills', () => {
  it('assistant brings clock, calculator and http fetch, and names them in its instructions', () => {
    const skill = assistantSkill();
    expect(skill.name).toBe('assistant');
    expect(names(skill)).toEqual(['clock', 'calculator', 'http_fetch']);
    for (const tool of names(skill)) expect(skill.instructions).toContain(`the ${tool} tool`);
  });

  it('analyst asks for data and sources, with calculator and http fetch', () => {
    const skill = analystSkill();
    expect(names(skill)).toEqual(['calculator', 'http_fetch']);
    expect(skill.instructions).toContain('Answer with data and sources');
    expect(skill.instructions).toContain('Sources:');
  });

  it('assistant and analyst compose when they share a toolbox', () => {
    const toolbox = createToolbox();
    const { tools } = composeSkills([assistantSkill({ toolbox }), analystSkill({ toolbox })]);
    expect(tools.map((tool) => tool.name)).toEqual(['clock', 'calculator', 'http_fetch']);
    expect(() => composeSkills([assistantSkill(), analystSkill()])).toThrow('Tool name clash');
  });

  it('coding brings the workspace tools, plus the command tool only with presets', async () => {
    const workspace = await Workspace.open(dir);
    expect(names(codingSkill({ workspace }))).toEqual([
      'read_file',
      'write_file',
      'edit_file',
      'list_directory',
      'find_files',
      'search_text',
    ]);
    const withCommands = codingSkill({
      workspace,
      commands: { test: { executable: process.execPath, args: ['--version'] } },
    });
    expect(names(withCommands)).toContain('run_command');
    expect(withCommands.instructions).toContain('through the run_command tool, by preset: test');
    const readOnly = codingSkill({ workspace, readOnly: true });
    expect(names(readOnly)).not.toContain('write_file');
    expect(readOnly.instructions).toContain('You cannot change files here');
    expect(() => codingSkill({} as never)).toThrow(ConfigError);
  });

  it('coding marks writes, edits and commands as requiring approval (unless requireApproval: false)', async () => {
    const workspace = await Workspace.open(dir);
    const commands = { test: { executable: process.execPath, args: ['--version'] } };
    const needsApproval = (skill: { tools: readonly { name: string; requiresApproval?: boolean }[] }) =>
      skill.tools.filter((tool) => tool.requiresApproval === true).map((tool) => tool.name);
    expect(needsApproval(codingSkill({ workspace, commands }))).toEqual(['write_file', 'edit_file', 'run_command']);
    expect(needsApproval(codingSkill({ workspace, commands, requireApproval: false }))).toEqual([]);
    expect(needsApproval(codingSkill({ workspace, readOnly: true }))).toEqual([]);
  });

  it('coding without an approve hook denies a write, and the file stays as it was', async () => {
    writeFileSync(join(dir, 'a.txt'), 'hello world\n');
    const workspace = await Workspace.open(dir);
    const model = scriptedModel([
      { content: '', toolCalls: [{ id: '1', name: 'write_file', arguments: { path: 'a.txt', content: 'x' } }] },
      { content: 'Could not.' },
    ]);
    const { system, tools } = composeSkills([codingSkill({ workspace })]);
    const result = await runAgent({ model, tools, system, prompt: 'Overwrite a.txt.' });
    expect(result.messages[2]).toMatchObject({ role: 'tool', name: 'write_file', isError: true });
    expect((result.messages[2] as { content: string }).content).toMatch(/^Denied: write_file requires approval/);
    expect(readFileSync(join(dir, 'a.txt'), 'utf8')).toBe('hello world\n');
  });

  it('coding edits files inside the workspace through an agent run', async () => {
    writeFileSync(join(dir, 'a.txt'), 'hello world\n');
    const workspace = await Workspace.open(dir);
    const skill = codingSkill({ workspace });
    const model = scriptedModel([
      {
        content: '',
        toolCalls: [{ id: '1', name: 'edit_file', arguments: { path: 'a.txt', oldText: 'world', newText: 'bridle' } }],
      },
      { content: 'Done.' },
    ]);
    const { system, tools } = composeSkills([skill]);
    const asked: string[] = [];
    const approve = (call: { name: string }) => {
      asked.push(call.name);
      return true;
    };
    const result = await runAgent({ model, tools, system, prompt: 'Greet bridle.', approve });
    expect(result.status).toBe('completed');
    expect(asked).toEqual(['edit_file']);
    expect(readFileSync(join(dir, 'a.txt'), 'utf8')).toBe('hello bridle\n');
    expect(model.requests[0]?.system).toBe(`<skill name="coding">\n${skill.instructions}\n</skill>`);
  });
});

describe('agent.use(skill)', () => {
  it('appends the instructions in a delimited section and registers the tools; skills compose', async () => {
    const model = scriptedModel([
      { content: '', toolCalls: [{ id: '1', name: 'calculator', arguments: { expression: '6*7' } }] },
      { content: '42' },
    ]);
    const toolbox = createToolbox();
    const tone = defineSkill({ name: 'tone', description: 'Tone', instructions: 'Be brief.' });
    const agent = new Agent({ model, system: 'You help.' }).use(assistantSkill({ toolbox })).use(tone);
    const result = await agent.run('What is 6*7?');
    expect(result.status).toBe('completed');
    const request = model.requests[0];
    expect(request?.system).toBe(
      `You help.\n\n<skill name="assistant">\n${assistantSkill({ toolbox }).instructions}\n</skill>\n\n<skill name="tone">\nBe brief.\n</skill>`,
    );
    expect(request?.tools.map((tool) => tool.name)).toEqual(['clock', 'calculator', 'http_fetch']);
    expect(result.messages[2]).toMatchObject({ role: 'tool', name: 'calculator', isError: false });
  });

  it('throws ConfigError on a tool name clash, changing nothing', () => {
    const agent = new Agent({ model: scriptedModel([]) }).use(assistantSkill());
    let caught: unknown;
    try {
      agent.use(analystSkill());
    } catch (error) {
      caught = error;
    }
    expect(ConfigError.isInstance(caught)).toBe(true);
    expect((caught as Error).message).toContain('"calculator"');
    expect(agent.tools.map((tool) => tool.name)).toEqual(['clock', 'calculator', 'http_fetch']);
  });
});
