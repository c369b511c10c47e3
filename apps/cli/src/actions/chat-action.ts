import { randomUUID } from 'node:crypto';
import { createInterface } from 'node:readline';
import { compact } from '@bridle/context';
import { Agent } from '@bridle/core';
import type { RunEvent } from '@bridle/events';
import { displayText, resolveModel } from '@bridle/models';
import type { Message, StoredSession, Usage } from '@bridle/protocol';
import { errorMessage, redactCredentials } from '@bridle/protocol/internal';
import { type AgentFlags, buildAgentSetup } from '../agent-setup';
import { answerOnKey } from '../answer-on-key';
import { createApprover } from '../approval-prompt';
import { type ChatControls, completeChatCommand, runChatCommand } from '../chat-commands';
import { chooseSession, ownSessions } from '../choose-session';
import { cliApprovalRules } from '../cli-approval-rules';
import { openCliStore } from '../cli-store';
import { openCliTelemetry } from '../cli-telemetry';
import type { CommandContext } from '../command-context';
import { loadDecisionKey } from '../decision-key-file';
import { editPreview } from '../edit-preview';
import { ExitCode } from '../exit-code';
import type { LiveRegion } from '../live-region';
import { liveRegionFor } from '../live-region-for';
import { loadCliProject } from '../load-cli-project';
import { markdownFor } from '../markdown-for';
import { type McpFlags, openMcpTools } from '../mcp-tools';
import { describeInstructions, loadProjectInstructions, withInstructions } from '../project-instructions';
import { canonicalFolder } from '../project-store-url';
import { createRunRenderer, type RunRenderer } from '../render-run';
import { pickSession } from '../session-picker';
import { isOwnSession, sessionSeal } from '../session-signature';
import { sessionTitle } from '../session-title';

/** Flags of `bridle chat`. */
export interface ChatFlags extends AgentFlags, McpFlags {
  session?: string;
  continue?: boolean;
  /** `--resume <id>`, or `--resume` alone (`true`): a picker of this folder's sessions. */
  resume?: string | true;
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
  const rules = cliApprovalRules(io.cwd, setup, project);
  const instructions = await loadProjectInstructions({
    root: setup.workspaceRoot ?? io.cwd,
    configDir: project.configDir,
  });
  const system = withInstructions(setup.system, instructions);
  const stored = await openCliStore(context, flags, project.config);
  const markdown = await markdownFor(io.stdout, context.outputStyle);
  let session: StoredSession;
  let mcp: Awaited<ReturnType<typeof openMcpTools>>;
  let decisionKey: Buffer;
  const folder = canonicalFolder(io.cwd);
  try {
    decisionKey = await loadDecisionKey(io.env);
    const key = decisionKey;
    const canPick = io.stdin.isTTY === true && io.stderr.isTTY === true;
    const chosen = await chooseSession({
      store: stored.store,
      ...(flags.session === undefined ? {} : { session: flags.session }),
      ...(flags.continue ? { continue: true } : {}),
      ...(flags.resume === undefined ? {} : { resume: flags.resume }),
      own: (candidate) => isOwnSession(key, candidate, folder),
      ...(canPick ? { pick: (sessions: StoredSession[]) => pickSession(io, sessions) } : {}),
    });
    if ('cancelled' in chosen) {
      await stored.close();
      return ExitCode.interrupted;
    }
    session = chosen.session;
    if (chosen.nothingToResume)
      io.stderr.write(style.dim(`(no earlier session of yours in this folder in ${stored.url}: starting a new one)\n`));
    if (chosen.skipped > 0)
      io.stderr.write(
        style.dim(
          `(--continue skipped ${chosen.skipped} newer ${chosen.skipped === 1 ? 'session' : 'sessions'} of ${stored.url} not written by you in this folder; --session <id> opens one by name)\n`,
        ),
      );
    mcp = await openMcpTools(flags.mcp, project, io, style);
  } catch (error) {
    await stored.close();
    throw error;
  }
  let renderer: RunRenderer | undefined;
  let live: LiveRegion | undefined;
  const memoryBudget =
    flags.memoryTokens !== undefined
      ? { maxTokens: flags.memoryTokens }
      : flags.memoryChars !== undefined
        ? { maxContextChars: flags.memoryChars }
        : undefined;
  const interactive = io.stdin.isTTY === true && io.stdout.isTTY === true;
  const lines = createInterface({
    input: io.stdin,
    output: io.stdout,
    terminal: interactive,
    completer: completeChatCommand,
  });
  let running: AbortController | undefined;
  let inputEnded = false;
  lines.once('close', () => {
    inputEnded = true;
  });
  // The approval question reads the chat's own line reader: `question()` takes the next line before the
  // loop below sees it, so an answer is never taken for the next message.
  const askInChat = (question: string, keys: readonly string[]) =>
    new Promise<string | undefined>((resolve) => {
      if (inputEnded) return resolve(undefined);
      const onClose = () => resolve(undefined);
      lines.once('close', onClose);
      // The line editor redraws (clears, then writes) its prompt line: the question's last line must be
      // that prompt, or the redraw erases it from the screen. The lines above it are written as they are.
      live?.pause();
      const lastBreak = question.lastIndexOf('\n');
      io.stderr.write(question.slice(0, lastBreak + 1));
      // Ctrl-C cancels the question too (the approver then denies), so it cannot swallow the next message.
      const signal = running?.signal ?? new AbortController().signal;
      const stopKeys = answerOnKey(lines, io.stdin, keys);
      signal.addEventListener('abort', stopKeys, { once: true });
      lines.question(question.slice(lastBreak + 1), { signal }, (answer) => {
        stopKeys();
        lines.off('close', onClose);
        live?.resume();
        resolve(answer);
      });
    });
  const approve = createApprover({
    policy: flags.yes ? 'yes' : (project.config.approval ?? 'ask'),
    ...(interactive && io.stderr.isTTY === true ? { ask: askInChat } : {}),
    ...(setup.workspaceRoot === undefined ? {} : { preview: editPreview(setup.workspaceRoot, style) }),
    stderr: io.stderr,
    style,
    rules,
    // The run in progress, read at each question (a getter: every turn has its own controller).
    get signal() {
      return running?.signal;
    },
  });
  let model = setup.model;
  let modelId = setup.modelId;
  // An agent holds its model and conversation: /model, /compact, /clear and /resume make a new one.
  const makeAgent = (messages: Message[]) =>
    new Agent({
      model,
      tools: [...setup.tools, ...mcp.tools],
      ...(system === undefined ? {} : { system }),
      ...setup.limits,
      stream: true,
      approve,
      store: stored.store,
      decisionKey,
      ...(messages.length > 0 ? { messages } : {}),
      onEvent: [(event: RunEvent) => renderer?.onEvent(event), ...telemetry.observers],
      ...(memoryBudget ? { memory: { ...memoryBudget, compact: flags.compact === true } } : {}),
    });
  let agent = makeAgent(session.messages);

  lines.setPrompt(context.outputStyle.bold('› '));
  const usage: Usage = { inputTokens: 0, outputTokens: 0 };
  let costUsd: number | undefined;
  const addUsage = (more: Usage) => {
    usage.inputTokens += more.inputTokens;
    usage.outputTokens += more.outputTokens;
    if (more.costUsd !== undefined) costUsd = (costUsd ?? 0) + more.costUsd;
  };
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
  const own = (candidate: StoredSession) => isOwnSession(decisionKey, candidate, folder);
  const controls: ChatControls = {
    style,
    write: (text) => io.stderr.write(text),
    modelId: () => redactCredentials(modelId),
    setModel(id) {
      model = resolveModel(id, { env: io.env });
      modelId = id;
      agent = makeAgent(agent.messages);
    },
    async compact() {
      const messages = agent.messages;
      const result = await compact({
        model,
        messages,
        ...(flags.memoryTokens !== undefined
          ? { keepTokens: flags.memoryTokens }
          : { keepChars: flags.memoryChars ?? newestTurnChars(messages) }),
      });
      if (result.usage) addUsage(result.usage);
      if (result.summarized > 0) {
        agent = makeAgent(result.messages);
        await saveSession();
      }
      return result.summarized;
    },
    async clear() {
      const now = new Date().toISOString();
      session = { id: randomUUID(), messages: [], createdAt: now, updatedAt: now };
      agent = makeAgent([]);
    },
    async reset() {
      agent.reset();
      await saveSession();
    },
    usage: () => ({ runs, ...usage, ...(costUsd === undefined ? {} : { costUsd }), messages: agent.messages.length }),
    sessions: async () => (await ownSessions(stored.store, own)).filter((item) => item.messages.length > 0),
    currentSession: () => session.id,
    async resume(chosen) {
      session = chosen;
      agent = makeAgent(chosen.messages);
    },
    runs: () => stored.store.listRuns({ limit: 10 }),
  };
  const stopListening = io.onInterrupt(onInterrupt);
  lines.on('SIGINT', onInterrupt);

  io.stderr.write(
    style.dim(
      `bridle chat · ${redactCredentials(modelId)} · skills: ${setup.skills.map((skill) => skill.name).join(', ') || 'none'} · session ${displayText(session.id)}${session.messages.length > 0 ? ` (${session.messages.length} messages)` : ''} · /help for commands\n`,
    ),
  );
  if (io.stderr.isTTY === true && instructions.files.length > 0)
    io.stderr.write(`${style.dim(describeInstructions(instructions))}\n`);
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
        if ((await runChatCommand(line, controls)) === 'exit') break;
        if (interactive) lines.prompt();
        continue;
      }
      running = new AbortController();
      live = await liveRegionFor(io, style, markdown !== undefined);
      renderer = createRunRenderer({
        stdout: io.stdout,
        stderr: io.stderr,
        style,
        markdown,
        live,
        workspaceRoot: io.stderr.isTTY === true ? setup.workspaceRoot : undefined,
      });
      try {
        const result = await agent.run(line, { signal: running.signal });
        renderer.finish(result);
        runs++;
        addUsage(result.usage);
        await saveSession();
      } finally {
        live?.stop();
        live = undefined;
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
    };
    // The folder and this user's signature: --continue picks only sessions sealed so.
    const title = sessionTitle(session);
    session.meta = {
      model: redactCredentials(modelId),
      ...(title === undefined ? {} : { title }),
      ...sessionSeal(decisionKey, session, folder),
    };
    try {
      await stored.store.saveSession(session);
    } catch (error) {
      io.stderr.write(style.yellow(`bridle: the session was not saved: ${errorMessage(error)}\n`));
    }
  }
}

/** The size `compact` gives the newest turn (from the last user message on): /compact keeps that turn whole. */
function newestTurnChars(messages: readonly Message[]): number {
  let start = messages.length - 1;
  while (start > 0 && messages[start]?.role !== 'user') start--;
  return Math.max(
    1,
    messages.slice(start).reduce((sum, message) => sum + JSON.stringify(message).length, 0),
  );
}
