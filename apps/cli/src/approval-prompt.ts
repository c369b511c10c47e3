import type { ApproveHook } from '@bridle/core';
import { displayText } from '@bridle/models';
import { approvalView } from '@bridle/protocol';
import type { CliOutput } from './cli-io';
import type { ApprovalRules } from './permission-rules';
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
  ask?: (question: string, keys: readonly string[]) => Promise<string | undefined>;
  /**
   * What a call would change, shown under its question (the CLI gives a file edit's diff): `full` is false for the
   * question, true after `e` / `?`. Undefined shows nothing.
   */
  preview?: (name: string, args: unknown, full: boolean) => string | undefined;
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
  /**
   * Longest argument value shown whole in the question, in characters (`approvalView` of @bridle/protocol);
   * default 200. Every key is shown; `path`, `command`, `url` and preset parameters are never shortened.
   */
  maxValueChars?: number;
  /**
   * Rules that approve calls without a question (remembered for the folder, or in config files; see
   * `approvalRules`). With them, `a` allows the tool for this process except on protected paths, then offers to
   * remember a rule for the folder (`[y]` / `[n]`).
   */
  rules?: ApprovalRules;
}

/**
 * The CLI's `approve` hook for `runAgent`. With `ask`, each call of a tool that requires approval is shown
 * (tool name and every argument key, long values shortened in the middle, `v` printing them whole; control
 * characters escaped: they come from the model), with `preview` under it (an edit's diff), and answered with one
 * key (`ask` gets them: {@link ANSWER_KEYS}): `y` (this call), `a` (every call of this tool from now on, in this
 * process), `e` or `?` (show the whole arguments and the whole preview, then ask again) or `n` (deny; also any other
 * answer, end of input and Ctrl-C). Enter alone asks again. Questions are asked one at a time, in call order. Without `ask` and
 * without `yes`, calls are denied, with one line per tool that says how to approve (`--yes`).
 */
export function createApprover(options: ApproverOptions): ApproveHook {
  const { stderr, style } = options;
  const policy = options.policy ?? 'ask';
  const maxValueChars = options.maxValueChars ?? 200;
  const always = new Set<string>();
  const told = new Set<string>();
  let queue: Promise<unknown> = Promise.resolve();

  const tellOnce = (name: string, line: string) => {
    if (told.has(name)) return;
    told.add(name);
    stderr.write(`${style.yellow(line)}\n`);
  };

  const rules = options.rules;
  return (call, tool) => {
    if (policy === 'yes') return true;
    const name = displayText(tool.name);
    if (policy === 'deny') {
      tellOnce(tool.name, `bridle: denied ${name}: the approval policy of your settings is "deny".`);
      return false;
    }
    if (rules !== undefined) {
      // A rule approves even without a terminal (it is the user's own answer); otherwise decide as below.
      const byRule = async (): Promise<boolean> => {
        const rule = await rules.match(call);
        if (rule === undefined) return await withoutRule();
        stderr.write(`${style.dim(`  ${name} allowed by your rule ${displayText(rule)}`)}\n`);
        return true;
      };
      const decision = queue.then(byRule, byRule);
      queue = decision.catch(() => undefined);
      return decision;
    }
    return withoutRule();

    function withoutRule(): boolean | Promise<boolean> {
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
        const view = approvalView(call.arguments, { maxValueChars });
        const preview = options.preview?.(tool.name, call.arguments, false);
        // Shortened values are one key away: `e` (or `?`, or `v` as before) prints everything, then asks again.
        const allow = style.bold(`Allow? [y] yes  [n] no  [a] always for ${name}  [e] show all: `);
        let question = `${style.bold(`? ${name}`)} ${displayText(view.text)}\n${preview ? `${preview}\n` : ''}  ${allow}`;
        let choice: string | undefined;
        for (;;) {
          const answer = await raceAbort(ask(question, ANSWER_KEYS), options.signal);
          choice = answer?.trim().toLowerCase();
          if (choice === '') {
            question = `  ${allow}`;
            continue;
          }
          if (choice === undefined || !SHOW_ALL.includes(choice)) break;
          const full = options.preview?.(tool.name, call.arguments, true);
          stderr.write(`${view.full.split('\n').map(displayText).join('\n')}\n${full ? `${full}\n` : ''}`);
          question = `  ${allow}`;
        }
        if (choice === 'a' || choice === 'always') {
          if (rules === undefined) always.add(tool.name);
          else await rememberOrAllow(ask);
          return true;
        }
        if (choice === 'y' || choice === 'yes') return true;
        stderr.write(`${style.dim(`  denied ${name}`)}\n`);
        return false;
      };
      // With rules, the caller already waits its turn in the queue.
      if (rules !== undefined) return decide();
      const decision = queue.then(decide, decide);
      queue = decision.catch(() => undefined);
      return decision;
    }

    /** `a` with rules: the tool for this process (never a protected path), and a rule for the folder if wanted. */
    async function rememberOrAllow(ask: NonNullable<ApproverOptions['ask']>): Promise<void> {
      if (rules === undefined) return;
      rules.allow(tool.name);
      const rule = await rules.suggest(call);
      if (rule === undefined) return;
      const answer = await raceAbort(
        ask(`  ${style.bold(`Remember ${displayText(rule)} for this folder? [y] yes  [n] this session only: `)}`, [
          'y',
          'n',
        ]),
        options.signal,
      );
      if (answer?.trim().toLowerCase() !== 'y') return;
      try {
        await rules.remember(rule);
        stderr.write(
          `${style.dim(`  remembered; forget it with: bridle permissions --revoke '${displayText(rule)}'`)}\n`,
        );
      } catch (error) {
        stderr.write(
          `${style.yellow(`bridle: could not remember ${displayText(rule)}: ${(error as Error).message}`)}\n`,
        );
      }
    }
  };
}

/** The keys that answer an approval question at once (without Enter). */
export const ANSWER_KEYS: readonly string[] = ['y', 'n', 'a', 'e', '?', 'v'];
const SHOW_ALL = ['e', '?', 'v', 'view'];

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
