import { randomUUID } from 'node:crypto';
import { createInterface } from 'node:readline';
import { Agent } from '@bridle/core';
import type { RunEvent } from '@bridle/events';
import { displayText } from '@bridle/models';
import type { Store, StoredSession, Usage } from '@bridle/protocol';
import { errorMessage } from '@bridle/protocol/internal';
import { type AgentFlags, buildAgentSetup } from '../agent-setup';
import { createApprover } from '../approval-prompt';
import { CHAT_HELP } from '../chat-help';
import { openCliStore } from '../cli-store';
import { openCliTelemetry } from '../cli-telemetry';
import type { CommandContext } from '../command-context';
import { ExitCode } from '../exit-code';
import { loadCliProject } from '../load-cli-project';
import { markdownFor } from '../markdown-for';
import { type McpFlags, openMcpTools } from '../mcp-tools';
import { createRunRenderer, type RunRenderer } from '../render-run';

/** Flags of `bridle chat`. */
export interface ChatFlags extends AgentFlags, McpFlags {
  session?: string;
  continue?: boolean;
  memoryChars?: number;
  memoryTokens?: number;
  compact?: boolean;
}

/** The `chat` command's work; resolves with the exit code. */
export async function chatAction(context: CommandContext, flags: ChatFlags): Promise<number> {
  const { io, errorStyle: style } = context;
  if (flags.compact && flags.memoryChars === undefined && flags.memoryTokens === undefined) {
    io.stderr.write(style.red('bridle: --compact needs a budget: add --memory-chars N or --memory-tokens N.\n'));
    return ExitCode.usage;
  }
  const project = await loadCliProject(context, flags);
  const telemetry = await openCliTelemetry(context);
  const setup = await buildAgentSetup(flags, io, project.config);
  const stored = await openCliStore(context, flags, project.config);
  const markdown = await markdownFor(io.stdout, context.outputStyle);
  let session: StoredSession;
  let mcp: Awaited<ReturnType<typeof openMcpTools>>;
  try {
    session = await chooseSession(stored.store, flags);
    mcp = await openMcpTools(flags.mcp, project, io, style);
  } catch (error) {
    await stored.close();
    throw error;
  }
  let renderer: RunRenderer | undefined;
  const memoryBudget =
    flags.memoryTokens !== undefined
      ? { maxTokens: flags.memoryTokens }
      : flags.memoryChars !== undefined
        ? { maxContextChars: flags.memoryChars }
        : undefined;
  const interactive = io.stdin.isTTY === true && io.stdout.isTTY === true;
  const lines = createInterface({ input: io.stdin, output: io.stdout, terminal: interactive });
  let running: AbortController | undefined;
  let inputEnded = false;
  lines.once('close', () => {
    inputEnded = true;
  });
  // The approval question reads the chat's own line reader: `question()` takes the next line before the
  // loop below sees it, so an answer is never taken for the next message.
  const askInChat = (question: string) =>
    new Promise<string | undefined>((resolve) => {
      if (inputEnded) return resolve(undefined);
      const onClose = () => resolve(undefined);
      lines.once('close', onClose);
      io.stderr.write(question);
      // Ctrl-C cancels the question too (the approver then denies), so it cannot swallow the next message.
      const signal = running?.signal ?? new AbortController().signal;
      lines.question('', { signal }, (answer) => {
        lines.off('close', onClose);
        resolve(answer);
      });
    });
  const approve = createApprover({
    policy: flags.yes ? 'yes' : (project.config.approval ?? 'ask'),
    ...(interactive && io.stderr.isTTY === true ? { ask: askInChat } : {}),
    stderr: io.stderr,
    style,
    // The run in progress, read at each question (a getter: every turn has its own controller).
    get signal() {
      return running?.signal;
    },
  });
  const agent = new Agent({
    model: setup.model,
    tools: [...setup.tools, ...mcp.tools],
    ...(setup.system === undefined ? {} : { system: setup.system }),
    ...setup.limits,
    stream: true,
    approve,
    store: stored.store,
    ...(session.messages.length > 0 ? { messages: session.messages } : {}),
    onEvent: [(event: RunEvent) => renderer?.onEvent(event), ...telemetry.observers],
    ...(memoryBudget ? { memory: { ...memoryBudget, compact: flags.compact === true } } : {}),
  });

  lines.setPrompt(context.outputStyle.bold('› '));
  const usage: Usage = { inputTokens: 0, outputTokens: 0 };
  let runs = 0;
  let idleInterrupts = 0;

  const onInterrupt = () => {
    if (running) {
      running.abort(new Error('Cancelled with Ctrl-C'));
      return;
    }
    idleInterrupts++;
    if (idleInterrupts >= 2) lines.close();
    else {
      io.stderr.write(style.dim('\n(Ctrl-C again, Ctrl-D or /exit to leave)\n'));
      if (interactive) lines.prompt();
    }
  };
  const stopListening = io.onInterrupt(onInterrupt);
  lines.on('SIGINT', onInterrupt);

  io.stderr.write(
    style.dim(
      `bridle chat · ${setup.modelId} · skills: ${setup.skills.map((skill) => skill.name).join(', ') || 'none'} · session ${displayText(session.id)}${session.messages.length > 0 ? ` (${session.messages.length} messages)` : ''} · /help for commands\n`,
    ),
  );
  if (interactive) lines.prompt();
  try {
    for await (const raw of lines) {
      idleInterrupts = 0;
      const line = raw.trim();
      if (line === '') {
        if (interactive) lines.prompt();
        continue;
      }
      if (line.startsWith('/')) {
        const done = handleCommand(line);
        if (done) break;
        if (interactive) lines.prompt();
        continue;
      }
      running = new AbortController();
      renderer = createRunRenderer({
        stdout: io.stdout,
        stderr: io.stderr,
        style,
        markdown,
      });
      try {
        const result = await agent.run(line, { signal: running.signal });
        renderer.finish(result);
        runs++;
        usage.inputTokens += result.usage.inputTokens;
        usage.outputTokens += result.usage.outputTokens;
        await saveSession();
      } finally {
        running = undefined;
        renderer = undefined;
      }
      if (interactive) lines.prompt();
    }
  } finally {
    stopListening();
    lines.close();
    await mcp.close();
    await stored.close();
    await telemetry.close();
  }
  return ExitCode.completed;

  async function saveSession(): Promise<void> {
    session = {
      ...session,
      messages: agent.messages,
      updatedAt: new Date().toISOString(),
      meta: { model: setup.modelId },
    };
    try {
      await stored.store.saveSession(session);
    } catch (error) {
      io.stderr.write(style.yellow(`bridle: the session was not saved: ${errorMessage(error)}\n`));
    }
  }

  function handleCommand(line: string): boolean {
    const [name] = line.split(/\s+/);
    switch (name) {
      case '/exit':
      case '/quit':
        return true;
      case '/reset':
        agent.reset();
        void saveSession();
        io.stderr.write(style.dim('(conversation cleared)\n'));
        return false;
      case '/usage':
        io.stderr.write(
          `${runs} ${runs === 1 ? 'run' : 'runs'} · ${usage.inputTokens} in / ${usage.outputTokens} out tokens · ${agent.messages.length} messages kept\n`,
        );
        return false;
      case '/help':
        io.stderr.write(`${CHAT_HELP}\n`);
        return false;
      default:
        io.stderr.write(style.yellow(`Unknown command ${name}: use /reset, /usage, /exit or /help.\n`));
        return false;
    }
  }
}

/** The session to continue: `--session <id>` (created when new), `--continue` (the newest), else a new one. */
async function chooseSession(store: Store, flags: ChatFlags): Promise<StoredSession> {
  const now = new Date().toISOString();
  const fresh = (id: string): StoredSession => ({ id, messages: [], createdAt: now, updatedAt: now });
  if (flags.session !== undefined) return (await store.getSession(flags.session)) ?? fresh(flags.session);
  if (flags.continue) {
    const [newest] = await store.listSessions({ limit: 1 });
    const found = newest === undefined ? undefined : await store.getSession(newest.id);
    if (found !== undefined) return found;
  }
  return fresh(randomUUID());
}
