import { execFileSync, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { tempDir } from './cli-process';

/**
 * Why screen-level tests cannot run here, or undefined when they can. They need tmux (a real terminal
 * emulator: `capture-pane` reads what a person sees, after every redraw and erase). Without it they skip
 * with one loud line; under CI=true they fail instead.
 */
export function tmuxUnavailable(): string | undefined {
  if (spawnSync('tmux', ['-V'], { encoding: 'utf8' }).status === 0) return undefined;
  const reason = 'tmux is missing (install it with `sudo apt-get install -y tmux`)';
  if (process.env.CI === 'true') throw new Error(`Screen-level terminal tests cannot run under CI: ${reason}.`);
  console.warn(`\n*** SKIPPING the screen-level terminal tests: ${reason}. ***\n`);
  return reason;
}

/** A program running on its own tmux server's terminal. */
export interface Screen {
  /** What the terminal shows now and its scrollback, wrapped lines joined, trailing blank lines dropped. */
  read(): string;
  /** Types `text` (literally), then Enter when `enter` is true. */
  type(text: string, enter?: boolean): void;
  /**
   * Resolves with the screen once it satisfies `condition`; rejects naming `what` and showing the screen
   * when it has not after 60 s (generous: a loaded machine; nothing here measures time).
   */
  until(condition: (screen: string) => boolean, what?: string): Promise<string>;
  /** Stops the tmux server (and the program). */
  close(): void;
}

const quote = (word: string) => `'${word.replaceAll("'", "'\\''")}'`;

/**
 * Starts `command` on a fresh tmux server (its own socket, no user config) in a `width` x `height`
 * terminal (TERM xterm-256color), with exactly `env` as its environment and `cwd` as its folder. The pane
 * stays after the program exits, so its last screen can still be read.
 */
export function startScreen(
  command: readonly string[],
  options: { cwd: string; env: Record<string, string>; width?: number; height?: number },
): Screen {
  const socket = join(tempDir('bridle-tmux-'), 'socket');
  const tmux = (...args: string[]) =>
    execFileSync('tmux', ['-S', socket, '-f', '/dev/null', ...args], { encoding: 'utf8' });
  const environment = Object.entries({ ...options.env, TERM: 'xterm-256color' }).map(
    ([key, value]) => `${key}=${value}`,
  );
  const shell = `cd ${quote(options.cwd)} && exec env -i ${[...environment, ...command].map(quote).join(' ')}`;
  tmux(
    'new-session',
    '-d',
    '-s',
    'test',
    '-x',
    String(options.width ?? 160),
    '-y',
    String(options.height ?? 50),
    shell,
    ';',
    'set-option',
    '-t',
    'test',
    'remain-on-exit',
    'on',
  );
  // The scrollback too (`-S -`): when the program exits, tmux writes "Pane is dead" on the last line with a line
  // feed, which scrolls the screen up by one; a program that wrote only its first line (an outcome line after the
  // live region was cleared) would otherwise lose it the moment it exits.
  const read = () =>
    tmux('capture-pane', '-p', '-J', '-S', '-', '-t', 'test')
      .split('\n')
      .map((line) => line.trimEnd())
      .join('\n')
      .trimEnd();
  return {
    read,
    type(text, enter = true) {
      if (text !== '') tmux('send-keys', '-t', 'test', '-l', text);
      if (enter) tmux('send-keys', '-t', 'test', 'Enter');
    },
    async until(condition, what = 'the expected screen') {
      const giveUp = Date.now() + 60_000;
      for (;;) {
        const screen = read();
        if (condition(screen)) return screen;
        if (Date.now() > giveUp) throw new Error(`The terminal never showed ${what}. Its screen:\n${screen}`);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    },
    close() {
      try {
        tmux('kill-server');
      } catch {
        // already gone
      }
    },
  };
}
