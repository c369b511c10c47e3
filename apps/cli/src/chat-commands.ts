import { displayText } from '@bridle/models';
import type { RunSummary, StoredSession } from '@bridle/protocol';
import { errorMessage } from '@bridle/protocol/internal';
import { CHAT_COMMANDS, CHAT_HELP } from './chat-help';
import { formatUsd } from './format-usd';
import { formatRunLine } from './run-line';
import { sessionTitle, shortTitle } from './session-title';
import type { Style } from './style';

/**
 * Tab completion of the chat's line editor (readline's `completer`): a line that is the start of a command name
 * completes to the commands it could be; any other line completes to nothing.
 */
export function completeChatCommand(line: string): [string[], string] {
  if (!line.startsWith('/') || /\s/.test(line)) return [[], line];
  const hits = CHAT_COMMANDS.map((command) => command.name).filter((name) => name.startsWith(line));
  return [hits.length === 1 ? [`${hits[0]} `] : hits, line];
}

/** What the chat's commands act on (the chat action gives them). */
export interface ChatControls {
  style: Style;
  /** Writes a line (or lines) to the terminal's stderr. */
  write(text: string): void;
  modelId(): string;
  /** Switches the model; throws `ConfigError` for a bad id or a missing key. */
  setModel(id: string): void;
  /** Summarizes the conversation with the model; resolves with how many messages the summary replaced. */
  compact(): Promise<number>;
  /** Starts a new, empty session. */
  clear(): Promise<void>;
  /** Forgets the conversation of this session. */
  reset(): Promise<void>;
  usage(): { runs: number; inputTokens: number; outputTokens: number; costUsd?: number; messages: number };
  /** This folder's own sessions, newest first. */
  sessions(): Promise<StoredSession[]>;
  currentSession(): string;
  resume(session: StoredSession): Promise<void>;
  runs(): Promise<RunSummary[]>;
}

/** Runs one `/command` line; resolves with `'exit'` for `/exit` and `/quit`. Never rejects: errors are printed. */
export async function runChatCommand(line: string, controls: ChatControls): Promise<'exit' | undefined> {
  const { style, write } = controls;
  const [name = '', ...rest] = line.trim().split(/\s+/);
  const argument = rest.join(' ');
  try {
    switch (name) {
      case '/exit':
      case '/quit':
        return 'exit';
      case '/help':
        write(`${CHAT_HELP}\n`);
        return;
      case '/model':
        if (argument !== '') controls.setModel(argument);
        write(`${style.dim(`model: ${displayText(controls.modelId())}`)}\n`);
        return;
      case '/compact': {
        const summarized = await controls.compact();
        write(
          style.dim(
            summarized === 0
              ? '(nothing to compact: the conversation is short)\n'
              : `(compacted: ${summarized} messages replaced by a summary)\n`,
          ),
        );
        return;
      }
      case '/cost':
      case '/usage': {
        const usage = controls.usage();
        const cost = usage.costUsd === undefined ? '' : ` · ${formatUsd(usage.costUsd)}`;
        write(
          `${usage.runs} ${usage.runs === 1 ? 'run' : 'runs'} · ${usage.inputTokens} in / ${usage.outputTokens} out tokens${cost} · ${usage.messages} messages kept\n`,
        );
        return;
      }
      case '/clear':
        await controls.clear();
        write(style.dim(`(new session ${displayText(controls.currentSession())}; /resume lists the earlier ones)\n`));
        return;
      case '/reset':
        await controls.reset();
        write(style.dim('(conversation cleared)\n'));
        return;
      case '/resume':
        await resume(argument, controls);
        return;
      case '/runs': {
        const runs = await controls.runs();
        if (runs.length === 0) write(style.dim('(no runs in the store yet)\n'));
        const width = Math.max(0, ...runs.map((run) => run.status.length));
        for (const run of runs) write(`${formatRunLine(run, style, width)}\n`);
        return;
      }
      default:
        write(style.yellow(`Unknown command ${displayText(name)}: /help lists the commands (Tab completes them).\n`));
        return;
    }
  } catch (error) {
    write(style.yellow(`bridle: ${name}: ${errorMessage(error)}\n`));
    return;
  }
}

async function resume(argument: string, controls: ChatControls): Promise<void> {
  const { style, write } = controls;
  const sessions = await controls.sessions();
  if (argument === '') {
    if (sessions.length === 0) write(style.dim('(no sessions of yours in this folder yet)\n'));
    sessions.forEach((session, index) => {
      const current = session.id === controls.currentSession() ? ' (this one)' : '';
      write(
        `${String(index + 1).padStart(2)}. ${shortTitle(sessionTitle(session)) || '(untitled)'}  ${style.dim(`${session.messages.length} messages · ${session.updatedAt.slice(0, 16).replace('T', ' ')} · ${displayText(session.id)}${current}`)}\n`,
      );
    });
    if (sessions.length > 0) write(style.dim('/resume <n> or /resume <id> switches to one.\n'));
    return;
  }
  const byNumber = /^\d+$/.test(argument) ? sessions[Number(argument) - 1] : undefined;
  const chosen = byNumber ?? sessions.find((session) => session.id === argument);
  if (chosen === undefined) {
    write(style.yellow(`No session ${displayText(argument)} of yours in this folder: /resume lists them.\n`));
    return;
  }
  await controls.resume(chosen);
  write(
    style.dim(
      `(session ${displayText(chosen.id)}: ${shortTitle(sessionTitle(chosen)) || '(untitled)'}, ${chosen.messages.length} messages)\n`,
    ),
  );
}
