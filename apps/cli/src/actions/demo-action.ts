import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { runAgent } from '@bridle/core';
import { type EventObserver, jsonlSink, type RunEvent, summarizeEvents } from '@bridle/events';
import { codingSkill, composeSkills } from '@bridle/skills';
import { scriptedModel } from '@bridle/testing';
import { commandTool, Workspace } from '@bridle/workspace-tools';
import type { CommandContext } from '../command-context';
import { demoProjectDir } from '../demo-project-dir';
import { demoScript } from '../demo-script';
import { ExitCode } from '../exit-code';
import { markdownFor } from '../markdown-for';
import { printSummary } from '../print-summary';
import { createRunRenderer } from '../render-run';

/** Flags of `bridle demo`. */
export interface DemoFlags {
  keep?: boolean;
  trace?: string;
}

/** The `demo` command's work; resolves with the exit code. */
export async function demoAction(context: CommandContext, flags: DemoFlags): Promise<number> {
  const { io, outputStyle: style } = context;
  const out = io.stdout;
  const root = mkdtempSync(join(tmpdir(), 'bridle-demo-'));
  const trace = flags.trace === undefined ? undefined : jsonlSink(resolve(io.cwd, flags.trace));
  try {
    cpSync(demoProjectDir(), root, { recursive: true });
    const workspace = await Workspace.open(root);
    const presets = { test: { executable: process.execPath, args: ['--test'], timeoutMs: 30_000 } };
    const command = commandTool(workspace, presets);
    // A throwaway copy driven by a fixed script: nobody to ask, and nothing of the user's to protect.
    const skill = codingSkill({ workspace, commands: presets, requireApproval: false });
    const { system, tools } = composeSkills([skill]);
    const model = scriptedModel(demoScript({ command: command.name }), { id: 'scripted:demo', stream: true });
    const events: RunEvent[] = [];
    const observers: EventObserver[] = [(event) => events.push(event)];
    if (trace) observers.push(trace.onEvent);
    const markdown = await markdownFor(out, style);
    const renderer = () => createRunRenderer({ stdout: out, stderr: out, style, markdown });
    const heading = (text: string) => out.write(`\n${style.bold(style.cyan(text))}\n`);

    out.write(
      `${style.bold('bridle demo')} ${style.dim('· a scripted model (no network, no key) driving the real tools')}\n`,
    );
    out.write(
      style.dim(
        `Workspace: a temporary copy of the sample project at ${root}\nTools: ${tools.map((tool) => tool.name).join(', ')} (preset "test" = node --test)\n`,
      ),
    );

    heading('Run 1 · "The tests fail. Find the bug and fix it." (maxSteps 10)');
    out.write(
      style.dim(
        "Every call is validated against the tool's JSON Schema before it runs; a bad call comes back to the model as an error it can fix.\n\n",
      ),
    );
    const first = renderer();
    const run1 = await runAgent({
      model,
      tools,
      ...(system === undefined ? {} : { system }),
      prompt: 'The tests fail. Find the bug and fix it.',
      maxSteps: 10,
      stream: true,
      onEvent: [...observers, first.onEvent],
    });
    first.finish(run1);

    heading('Run 2 · "Now review every file." (maxToolCalls 2)');
    out.write(
      style.dim(
        'The model asks for 3 calls in one batch with a budget of 2: the whole batch is refused, nothing runs.\n\n',
      ),
    );
    const second = renderer();
    const run2 = await runAgent({
      model,
      tools,
      ...(system === undefined ? {} : { system }),
      messages: [...run1.messages, { role: 'user', content: 'Now review every file.' }],
      maxToolCalls: 2,
      stream: true,
      onEvent: [...observers, second.onEvent],
    });
    second.finish(run2);

    heading('Trace summary (summarizeEvents over both runs)');
    printSummary(out, style, summarizeEvents(events));
    const asExpected = run1.status === 'completed' && run2.status === 'tool_limit';
    out.write(
      `\n${asExpected ? style.green('Demo complete.') : style.red(`Unexpected outcome: run 1 ${run1.status}, run 2 ${run2.status}.`)} `,
    );
    out.write(
      style.dim(`Next: bridle run "What time is it in Tokyo?" with OPENAI_API_KEY or ANTHROPIC_API_KEY set.\n`),
    );
    if (flags.keep) out.write(style.dim(`The fixed project is kept at ${root}\n`));
    return asExpected ? ExitCode.completed : ExitCode.failed;
  } finally {
    await trace?.close();
    if (!flags.keep) rmSync(root, { recursive: true, force: true });
  }
}
