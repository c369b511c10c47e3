import { BridleError } from '@bridle/protocol';
import { errorMessage } from '@bridle/protocol/internal';
import { CommanderError } from 'commander';
import { type CliIO, processIO } from './cli-io';
import type { CommandContext } from './command-context';
import { ExitCode } from './exit-code';
import { createProgram } from './program';
import { colorEnabled, createStyle } from './style';

/**
 * Runs the CLI on `argv` (without `node` and the script) and resolves with the exit code. Commands
 * that need settings read the user's files through workspace trust (`loadCliProject`): a folder's
 * `.env` gives API keys only. Never rejects: a usage or configuration error is printed and gives 2;
 * an unexpected error is printed and gives 1.
 */
export async function main(argv: readonly string[], io: CliIO = processIO()): Promise<number> {
  const errorStyle = createStyle(colorEnabled(io.stderr, io.env));
  let exitCode: number = ExitCode.completed;
  const context: CommandContext = {
    io,
    outputStyle: createStyle(colorEnabled(io.stdout, io.env)),
    errorStyle,
    setExitCode: (code) => {
      exitCode = code;
    },
  };
  try {
    await createProgram(context).parseAsync([...argv], { from: 'user' });
    return exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and version exit 0; every other commander error is a usage error, already printed.
      return error.exitCode === 0 ? ExitCode.completed : ExitCode.usage;
    }
    if (BridleError.isInstance(error) && error.code === 'invalid_config') {
      io.stderr.write(`${errorStyle.red(`bridle: ${error.message}`)}\n`);
      return ExitCode.usage;
    }
    io.stderr.write(`${errorStyle.red(`bridle: ${errorMessage(error)}`)}\n`);
    if (io.env.BRIDLE_DEBUG && error instanceof Error && error.stack) io.stderr.write(`${error.stack}\n`);
    return ExitCode.failed;
  }
}
