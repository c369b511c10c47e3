import { Command } from 'commander';
import type { ResumeFlags } from '../actions/resume-action';
import { addAgentFlags } from '../agent-flags';
import type { CommandContext } from '../command-context';
import { collect } from '../parse-options';

/** `bridle resume <runId>`: continue a run that awaits approval or whose process died. */
export function resumeCommand(context: CommandContext): Command {
  const command = new Command('resume')
    .description(
      'Continue a stored run that is awaiting approval (decide its pending calls) or whose process died (status running); an ended run shows its result',
    )
    .argument('<runId>', 'the run to continue (bridle runs lists them)');
  addAgentFlags(command)
    .option('--approve <callId>', 'approve this pending call, repeatable', collect)
    .option('--deny <callId>', 'deny this pending call, repeatable', collect)
    .option('--json', 'print the result as one JSON object (as bridle run --json) instead of streaming')
    .option(
      '--allow-tool-changes',
      'continue with tools other than the run had (tools it did not have, or whose arguments changed); default: refused, naming them',
    )
    .addHelpText(
      'after',
      [
        '',
        'Give the tool flags the run had (-w, --skill, --allow-command, --mcp): the run continues with those tools.',
        'Without them the tools its manifest recorded are rebuilt. Tools the run did not have, or whose arguments',
        'changed since, are refused (exit 2, naming them) unless --allow-tool-changes.',
        'The model is the one the run recorded unless --model says otherwise. Pending calls: --approve / --deny by',
        'call id, --yes approves them all, and on a terminal you are asked for each one left; without a terminal a',
        'call with no decision stops the command (exit 2, naming the calls). Calls always run with the arguments',
        'the run recorded. Later calls that need approval are asked as in bridle run.',
        'A run that already ended is not run again: its answer and outcome (or --json result) are shown as it',
        'ended, with its exit code, and no model is called.',
        '',
        'Exit codes: as bridle run; 2 also for an unknown run or a decision on a call that is not pending.',
      ].join('\n'),
    )
    .action(async (runId: string, flags: ResumeFlags) => {
      context.setExitCode(await (await import('../actions/resume-action')).resumeAction(context, runId, flags));
    });
  return command;
}
