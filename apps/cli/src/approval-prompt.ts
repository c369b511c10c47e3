import type { ApproveHook } from '@bridle/core';
import { displayText } from '@bridle/models';
import type { CliOutput } from './cli-io';
import { oneLinePreview } from './render-run';
import type { Style } from './style';

/** How tools that require approval are decided (`approval` of a config file; `--yes` means `yes`). */
export type ApprovalPolicy = 'ask' | 'yes' | 'deny';

/** Options of {@link createApprover}. */
export interface ApproverOptions {
  /** `yes` approves every call; `deny` denies every call; `ask` (default) asks when `ask` is given. */
  policy?: ApprovalPolicy;
  /**
   * Shows `question` to the person and resolves with their answer line (undefined at end of input).
   * Absent when nobody can answer (no terminal): then every call is denied with a line naming `--yes`.
   */
  ask?: (question: string) => Promise<string | undefined>;
  /**
   * Why nobody is asked, for the denial line when `ask` is absent; default
   * `there is no terminal to ask on` (plus `, or run on a terminal to be asked`).
   */
  whyNotAsked?: string;
  /** Where denials and notes are written (the terminal's stderr). */
  stderr: CliOutput;
  style: Style;
  /** Ctrl-C while a question is open answers it `n`, so the run can stop. */
  signal?: AbortSignal;
  /** Longest rendering of a call's arguments in the question, in characters; default 2000. */
  maxArgumentChars?: number;
}

/**
 * The CLI's `approve` hook for `runAgent`. With `ask`, each call of a tool that requires approval is shown
 * (tool name and arguments, control characters escaped: they come from the model) and answered `y` (this
 * call), `a` (every call of this tool from now on, in this process) or `n` (deny; also anything else,
 * Enter, end of input and Ctrl-C). Questions are asked one at a time, in call order. Without `ask` and
 * without `yes`, calls are denied, with one line per tool that says how to approve (`--yes`).
 */
export function createApprover(options: ApproverOptions): ApproveHook {
  const { stderr, style } = options;
  const policy = options.policy ?? 'ask';
  const maxChars = options.maxArgumentChars ?? 2000;
  const always = new Set<string>();
  const told = new Set<string>();
  let queue: Promise<unknown> = Promise.resolve();

  const tellOnce = (name: string, line: string) => {
    if (told.has(name)) return;
    told.add(name);
    stderr.write(`${style.yellow(line)}\n`);
  };

  return (call, tool) => {
    if (policy === 'yes') return true;
    const name = displayText(tool.name);
    if (policy === 'deny') {
      tellOnce(tool.name, `bridle: denied ${name}: the approval policy of your settings is "deny".`);
      return false;
    }
    const ask = options.ask;
    if (ask === undefined) {
      const why = options.whyNotAsked;
      tellOnce(
        tool.name,
        why === undefined
          ? `bridle: denied ${name}: it needs approval and there is no terminal to ask on. Pass --yes to approve every tool call, or run on a terminal to be asked.`
          : `bridle: denied ${name}: it needs approval and ${why}. Pass --yes to approve every tool call.`,
      );
      return false;
    }
    const decide = async (): Promise<boolean> => {
      if (always.has(tool.name)) return true;
      if (options.signal?.aborted) return false;
      const shown = displayText(oneLinePreview(call.arguments, maxChars));
      const question = `${style.bold(`? ${name}`)} ${shown}\n  ${style.bold(`Allow? [y] yes  [n] no  [a] always for ${name}: `)}`;
      const answer = await raceAbort(ask(question), options.signal);
      const choice = answer?.trim().toLowerCase();
      if (choice === 'a' || choice === 'always') {
        always.add(tool.name);
        return true;
      }
      if (choice === 'y' || choice === 'yes') return true;
      stderr.write(`${style.dim(`  denied ${name}`)}\n`);
      return false;
    };
    const decision = queue.then(decide, decide);
    queue = decision.catch(() => undefined);
    return decision;
  };
}

function raceAbort<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T | undefined> {
  if (signal === undefined) return promise;
  return new Promise<T | undefined>((resolve, reject) => {
    const onAbort = () => resolve(undefined);
    if (signal.aborted) return resolve(undefined);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
