import { createInterface } from 'node:readline';
import type { TrustReview } from '@bridle/models';
import type { CliIO } from './cli-io';
import type { Style } from './style';

/** Whether the trust prompt can be shown: a person at a terminal can read and answer it. */
export function canAskTrust(io: CliIO): boolean {
  return io.stdin.isTTY === true && io.stderr.isTTY === true;
}

/**
 * The trust prompt (on stderr, answered on stdin): the folder, its files and what they would do,
 * then `Trust this folder? [y/N]`. Only `y` or `yes` trusts; Enter, anything else or Ctrl-D declines.
 */
export async function askTrust(io: CliIO, style: Style, review: TrustReview): Promise<boolean> {
  const lines = [
    '',
    style.bold(`This folder has Bridle settings that would act for you: ${review.folder}`),
    ...review.files.map((file) => `  ${file}`),
    ...(review.previous
      ? [
          style.yellow(
            `  They changed since you ${review.previous.trusted ? 'trusted' : 'declined'} them (${review.previous.decidedAt}).`,
          ),
        ]
      : []),
    'They would:',
    ...review.lines.map((line) => `  • ${line}`),
    style.dim(
      'Trust only folders whose authors you trust: these files can run programs and send your prompts and files elsewhere.',
    ),
  ];
  io.stderr.write(
    `${lines.join('\n')}\n${style.bold('Trust this folder and use them? The answer is remembered until a file changes. [y/N] ')}`,
  );
  const reader = createInterface({ input: io.stdin, terminal: false });
  const answer = await new Promise<string | undefined>((resolve) => {
    reader.once('line', resolve);
    reader.once('close', () => resolve(undefined));
  });
  reader.close();
  if (answer === undefined) io.stderr.write('\n');
  return /^\s*y(es)?\s*$/i.test(answer ?? '');
}
