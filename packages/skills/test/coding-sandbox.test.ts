import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { composeSkills, runAgent } from '@bridle/core';
import { openBubblewrapSandbox } from '@bridle/sandbox';
import { scriptedModel } from '@bridle/testing';
import { Workspace } from '@bridle/workspace-tools';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codingSkill } from '../src/coding-skill';

const probeFolder = await mkdtemp(join(tmpdir(), 'bridle-skills-sandbox-'));
const problem = await openBubblewrapSandbox({ root: probeFolder }).then(
  () => undefined,
  (error: Error) => error.message,
);
if (problem !== undefined && process.env.CI !== 'true') {
  console.warn(`SKIPPED @bridle/skills sandbox tests: ${problem} (install bubblewrap: apt-get install bubblewrap)`);
}

(problem === undefined || process.env.CI === 'true' ? describe : describe.skip)('coding with a sandbox', () => {
  beforeAll(async () => {
    await writeFile(join(probeFolder, 'a.txt'), 'one\n');
  });
  afterAll(async () => {
    await rm(probeFolder, { recursive: true, force: true });
  });

  it('adds the shell tool (approval required), says so in its instructions, and runs presets marked sandbox: true in it', async () => {
    const workspace = await Workspace.open(probeFolder);
    const sandbox = await openBubblewrapSandbox({ root: probeFolder });
    const skill = codingSkill({
      workspace,
      sandbox,
      commands: { count: { executable: 'wc', args: ['-l', 'a.txt'], sandbox: true } },
    });
    expect(skill.tools.map((tool) => tool.name)).toEqual([
      'read_file',
      'write_file',
      'edit_file',
      'list_directory',
      'find_files',
      'search_text',
      'run_command',
      'shell',
    ]);
    expect(skill.tools.find((tool) => tool.name === 'shell')?.requiresApproval).toBe(true);
    expect(skill.instructions).toContain(
      '- Run shell commands (git status, git diff, ls, grep, the tests) with the shell tool. It runs in a sandbox: only the workspace is writable (not .git), there is no network, and its result lists what the sandbox refused.',
    );
    const model = scriptedModel([
      {
        content: '',
        toolCalls: [
          { id: 'c1', name: 'shell', arguments: { command: 'echo two >> a.txt' } },
          { id: 'c2', name: 'run_command', arguments: { command: 'count' } },
        ],
      },
      { content: 'Done.' },
    ]);
    const { system, tools } = composeSkills([skill]);
    const result = await runAgent({ model, tools, system, prompt: 'Add a line.', approve: () => true });
    expect(result.status).toBe('completed');
    expect(await readFile(join(probeFolder, 'a.txt'), 'utf8')).toBe('one\ntwo\n');
    expect(JSON.parse((result.messages[3] as { content: string }).content)).toMatchObject({
      exitCode: 0,
      stdout: '2 a.txt\n',
    });
    expect(codingSkill({ workspace, sandbox, readOnly: true }).tools.map((tool) => tool.name)).not.toContain('shell');
  });
});
