import { serveMcp } from '@bridle/mcp';
import { buildAgentSetup } from '../agent-setup';
import type { CommandContext } from '../command-context';
import type { CliCommandPreset } from '../command-preset';
import { ExitCode } from '../exit-code';

/** Flags of `bridle mcp-serve`. */
export interface McpServeFlags {
  skill?: string[];
  workspace?: string;
  allowCommand?: Record<string, CliCommandPreset>;
}

/**
 * `mcp-serve` makes no model call: a model id that needs no key lets it reuse the agent setup (skills,
 * workspace jail and its home/root guard, presets, SKILL.md folders) exactly as `bridle run` builds it.
 */
const NO_MODEL = 'openai-compatible:http://127.0.0.1:9/v1#mcp-serve';

/** Serves the tools of the chosen skills over stdio until the client disconnects; resolves with the exit code. */
export async function mcpServeAction(context: CommandContext, flags: McpServeFlags): Promise<number> {
  const { io } = context;
  const setup = await buildAgentSetup({ ...flags, model: NO_MODEL }, io);
  const handle = serveMcp(setup.tools, {
    name: 'bridle',
    ...(setup.system === undefined ? {} : { instructions: setup.system }),
    onError: (error) => io.stderr.write(`bridle mcp-serve: ${error.message}\n`),
  });
  io.stderr.write(
    `bridle mcp-serve: serving ${setup.tools.map((tool) => tool.name).join(', ')} over stdio (skills: ${setup.skills.map((skill) => skill.name).join(', ')})\n`,
  );
  const stop = io.onInterrupt(() => void handle.close());
  try {
    await handle.closed;
  } finally {
    stop();
  }
  return ExitCode.completed;
}
