import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { cliEnv, requireBuild, runCli, tempDir } from './cli-process';

beforeAll(requireBuild);

describe('bridle (usage)', () => {
  it('shows help for the program and every command with exit 0', async () => {
    const top = await runCli(['--help']);
    expect(top.code).toBe(0);
    for (const command of ['run', 'chat', 'batch', 'demo', 'serve'])
      expect(top.stdout).toMatch(new RegExp(`^  ${command}\\b`, 'm'));
    for (const command of ['run', 'chat', 'batch', 'demo', 'serve']) {
      const help = await runCli([command, '--help']);
      expect(help.code, command).toBe(0);
      expect(help.stdout).toContain(`Usage: bridle ${command}`);
    }
  });

  it('prints the version', async () => {
    const result = await runCli(['--version']);
    expect(result).toMatchObject({ code: 0, stdout: '0.1.0\n' });
  });

  it('exits 2 on an unknown command, an unknown option or no command', async () => {
    const unknown = await runCli(['fly']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("error: unknown command 'fly'");
    const option = await runCli(['run', 'hi', '--colour']);
    expect(option.code).toBe(2);
    expect(option.stderr).toContain("error: unknown option '--colour'");
    expect((await runCli([])).code).toBe(2);
  });

  it('exits 2 on invalid option values, naming the option', async () => {
    const steps = await runCli(['run', 'hi', '--max-steps', '0']);
    expect(steps.code).toBe(2);
    expect(steps.stderr).toContain(
      "error: option '--max-steps <n>' argument '0' is invalid. expected a positive integer, got \"0\".",
    );
    const timeout = await runCli(['run', 'hi', '--timeout', 'soon']);
    expect(timeout.code).toBe(2);
    expect(timeout.stderr).toContain('expected a duration such as 30s');
    const preset = await runCli(['run', 'hi', '--allow-command', 'x=rm -rf / && echo']);
    expect(preset.code).toBe(2);
    expect(preset.stderr).toContain('commands run without a shell');
  });

  it('names the variables to set when no model is configured', async () => {
    const result = await runCli(['run', 'hi']);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      'bridle: No model configured: set OPENAI_API_KEY or ANTHROPIC_API_KEY (in the environment or in .env), or set BRIDLE_MODEL / pass --model (e.g. openai-compatible:http://localhost:11434/v1#llama3.2 for a local server).\n',
    );
  });

  it('names the key a chosen model needs', async () => {
    const result = await runCli(['run', 'hi', '--model', 'anthropic:claude-sonnet-4-6'], {
      env: cliEnv({ OPENAI_API_KEY: 'sk-test' }),
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      'bridle: Model anthropic:claude-sonnet-4-6 needs ANTHROPIC_API_KEY: set it in the environment or in .env',
    );
  });

  it('rejects a bad model id, an unknown skill and options that need --workspace', async () => {
    const env = cliEnv({ OPENAI_API_KEY: 'sk-test' });
    expect((await runCli(['run', 'hi', '--model', 'gpt-4o'], { env })).stderr).toContain('Invalid model id "gpt-4o"');
    const skill = await runCli(['run', 'hi', '--skill', 'wizard'], { env });
    expect(skill.code).toBe(2);
    expect(skill.stderr).toContain(
      'Unknown skill "wizard": use assistant, coding, analyst or a path to a folder with a SKILL.md',
    );
    const coding = await runCli(['run', 'hi', '--skill', 'coding'], { env });
    expect(coding.stderr).toContain('--skill coding needs --workspace DIR');
    const command = await runCli(['run', 'hi', '--allow-command', 'test=npm test'], { env });
    expect(command.code).toBe(2);
    expect(command.stderr).toContain('--allow-command needs --workspace DIR');
    const workspace = await runCli(['run', 'hi', '--workspace', 'nowhere'], { env });
    expect(workspace.stderr).toMatch(/--workspace .*nowhere is not a folder/);
  });

  it("never takes BRIDLE_MODEL from the folder's .env; --env-file takes it; the shell wins over both", async () => {
    const cwd = tempDir();
    writeFileSync(join(cwd, '.env'), 'BRIDLE_MODEL=openai:gpt-4o-mini\n');
    const result = await runCli(['run', 'hi'], { cwd });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`bridle: ignored BRIDLE_MODEL in ${join(cwd, '.env')}`);
    expect(result.stderr).toContain('No model configured');
    const named = await runCli(['run', 'hi', '--env-file', '.env'], { cwd });
    expect(named.stderr).toContain('Model openai:gpt-4o-mini needs OPENAI_API_KEY');
    expect(named.stderr).not.toContain('ignored');
    const overridden = await runCli(['run', 'hi', '--env-file', '.env'], {
      cwd,
      env: cliEnv({ BRIDLE_MODEL: 'anthropic:claude-x' }),
    });
    expect(overridden.stderr).toContain('Model anthropic:claude-x needs ANTHROPIC_API_KEY');
  });

  it('rejects an empty prompt and a missing one', async () => {
    const env = cliEnv({ OPENAI_API_KEY: 'sk-test' });
    expect((await runCli(['run', ' '], { env })).stderr).toContain('The prompt is empty');
    const none = await runCli(['run'], { env, input: '' });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('The prompt read from stdin is empty');
  });
});
