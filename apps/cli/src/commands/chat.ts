import { Command, Option } from 'commander';
import type { ChatFlags } from '../actions/chat-action';
import { addAgentFlags } from '../agent-flags';
import { CHAT_HELP } from '../chat-help';
import type { CommandContext } from '../command-context';
import { positiveInteger } from '../parse-options';

/** `bridle chat`: a REPL over one `Agent`, so the conversation carries from turn to turn. */
export function chatCommand(context: CommandContext): Command {
  const command = new Command('chat').description(
    'Chat with an agent in the terminal (the conversation is kept between turns)',
  );
  addAgentFlags(command)
    .addOption(
      new Option(
        '--memory-chars <n>',
        'keep the conversation within this many characters (oldest turns dropped, tool batches kept whole)',
      )
        .argParser(positiveInteger)
        .conflicts('memoryTokens'),
    )
    .addOption(
      new Option('--memory-tokens <n>', 'keep the conversation within about this many tokens').argParser(
        positiveInteger,
      ),
    )
    .addOption(
      new Option(
        '--session <id>',
        'continue this session from the store (a new id starts a session with that id)',
      ).conflicts(['continue', 'resume']),
    )
    .addOption(new Option('--continue', 'continue the session used most recently').conflicts('resume'))
    .option(
      '--resume [id]',
      "resume a session: that id, or without one a picker of this folder's sessions (on a terminal)",
    )
    .option(
      '--compact',
      'summarize the dropped part of the conversation with the model instead of dropping it (needs --memory-chars or --memory-tokens)',
    )
    .addHelpText('after', `\nIn the chat:\n${CHAT_HELP}`)
    .action(async (flags: ChatFlags) => {
      context.setExitCode(await (await import('../actions/chat-action')).chatAction(context, flags));
    });
  return command;
}
