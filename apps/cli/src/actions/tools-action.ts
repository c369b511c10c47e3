import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { displayText } from '@bridle/models';
import { analystSkill, assistantSkill, codingSkill } from '@bridle/skills';
import { Workspace } from '@bridle/workspace-tools';
import { type AgentFlags, buildAgentSetup } from '../agent-setup';
import type { CommandContext } from '../command-context';
import { ExitCode } from '../exit-code';
import { loadCliProject } from '../load-cli-project';
import { type McpFlags, openMcpTools } from '../mcp-tools';

/** Flags of `bridle tools`. */
export interface ToolsFlags extends AgentFlags, McpFlags {
  json?: boolean;
}

/** Listing tools makes no model call: any id that needs no key will do. */
const NO_MODEL = 'openai-compatible:http://127.0.0.1:9/v1#tools';

const firstLine = (text: string) => text.split('\n')[0]?.trim() ?? '';

/** The `tools` command's work: one line per tool (name, approval, description). */
export async function toolsAction(context: CommandContext, flags: ToolsFlags): Promise<number> {
  const { io, outputStyle: style } = context;
  const project = await loadCliProject(context, flags);
  const setup = await buildAgentSetup({ ...flags, model: NO_MODEL }, io, project.config);
  const mcp = await openMcpTools(flags.mcp, project, io, context.errorStyle);
  try {
    const tools = [...setup.tools, ...mcp.tools];
    for (const tool of tools) {
      if (flags.json) {
        io.stdout.write(
          `${JSON.stringify({ name: tool.name, description: tool.description, readOnly: tool.readOnly === true, requiresApproval: tool.requiresApproval === true, parameters: tool.parameters })}\n`,
        );
        continue;
      }
      const kind = tool.requiresApproval
        ? style.yellow('asks first')
        : tool.readOnly
          ? style.green('read-only ')
          : 'runs      ';
      // MCP servers name and describe their own tools: escaped, as any text from outside.
      io.stdout.write(
        `${displayText(tool.name).padEnd(18)} ${kind}  ${style.dim(displayText(firstLine(tool.description)))}\n`,
      );
    }
    if (!flags.json)
      io.stderr.write(
        style.dim(
          `skills: ${setup.skills.map((skill) => skill.name).join(', ')} · "asks first" = needs approval (--yes approves all)\n`,
        ),
      );
    return ExitCode.completed;
  } finally {
    await mcp.close();
  }
}

/** The `skills` command's work: each built-in skill, what it is for, and its tools. */
export async function skillsAction(context: CommandContext, flags: { json?: boolean }): Promise<number> {
  const { io, outputStyle: style } = context;
  // The coding skill needs a folder to describe its tools: an empty temporary one, removed at once.
  const folder = mkdtempSync(join(tmpdir(), 'bridle-skills-'));
  try {
    const workspace = await Workspace.open(folder);
    const skills = [
      assistantSkill(),
      codingSkill({ workspace, commands: { example: { executable: process.execPath } } }),
      analystSkill(),
    ];
    for (const skill of skills) {
      const tools = skill.tools.map((tool) => tool.name);
      if (flags.json) {
        io.stdout.write(`${JSON.stringify({ name: skill.name, description: skill.description, tools })}\n`);
        continue;
      }
      io.stdout.write(
        `${style.bold(skill.name.padEnd(10))} ${skill.description}\n${' '.repeat(11)}${style.dim(`tools: ${tools.join(', ')}`)}\n`,
      );
    }
    if (!flags.json)
      io.stderr.write(
        style.dim(
          'Use with --skill NAME (repeatable), or --skill ./folder for a SKILL.md. coding needs -w DIR; its command tool (run_command) comes with --allow-command.\n',
        ),
      );
    return ExitCode.completed;
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}
