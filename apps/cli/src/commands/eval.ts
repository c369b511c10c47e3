import { Command, InvalidArgumentError } from 'commander';
import type { EvalFlags } from '../actions/eval-flags';
import type { CommandContext } from '../command-context';
import { collect, dollars, duration, nonNegativeInteger, positiveInteger } from '../parse-options';
import { addProjectFlags } from '../project-flags';
import { STORE_FLAG_HELP } from '../store-flag';

/** A commander parser for a share from 0 to 1 (`--fail-under 0.9`). */
function share(value: string): number {
  const number = /^(0(\.\d+)?|1(\.0+)?|\.\d+)$/.test(value.trim()) ? Number(value) : Number.NaN;
  if (!(number >= 0 && number <= 1))
    throw new InvalidArgumentError(`expected a number from 0 to 1 such as 0.9, got "${value}".`);
  return number;
}

const HELP = [
  '',
  'Dataset: one case a line, {"id"?, "input": "prompt" | [messages], "expected"?: {"answer"?, "contains"?, "regex"?,',
  '"tools"?: [{"name", "arguments"?}], "toolsOrder"?: "exact" | "any" | "subset", "json"?: JSONSchema}, "tags"?, "limits"?}.',
  'A bad line stops the eval before anything runs (every bad line is named).',
  '',
  'Variants: every --model with every --skill (a,b composes skills in one variant). Scorers: all built-ins, each',
  'scoring the cases that have its expectation (completedWithin scores every case), or the ones --scorer names;',
  '--judge <model> --rubric <text> adds an LLM judge. Each case is a journaled run tagged eval:<id> in the store.',
  '',
  '--from-runs <filter> turns recorded runs into cases (their answer and tool calls become the expectations):',
  'last:N, session:<id>, run:<id>[,<id>...], eval:<evalId>. With --replay they re-run offline against the recorded',
  'model responses (no key, no network; read-only tools of these flags run for real): each case fails naming the',
  'first difference, e.g. a tool whose result changed.',
  '',
  'Resume: an interrupted eval continues when run again with the same --out file (or --eval-id): the runs that',
  'already ended are scored from the journal, the rest run.',
  '',
  'Exit codes: 0 every variant and scorer passed at least --fail-under of its cases (default 1: all), 1 under it',
  '(or a replay differs), 2 usage error or bad dataset, 130 interrupted (rerun to resume).',
].join('\n');

/** `bridle eval <dataset>` and `bridle eval compare <a> <b>`. */
export function evalCommand(context: CommandContext): Command {
  const command = new Command('eval')
    .description('Run a dataset of cases on one or more models or skills, score every run and report')
    .argument('[dataset]', 'JSONL file of cases (or use --from-runs)')
    .option(
      '-m, --model <id>',
      'a model to evaluate, repeatable (default: $BRIDLE_MODEL, else from the API key present)',
      collect,
    )
    .option(
      '-s, --skill <names>',
      'a skill variant, repeatable: a built-in name or SKILL.md folder; a,b composes',
      collect,
    )
    .option(
      '--scorer <name>',
      'a built-in scorer, repeatable: exactAnswer, contains, matches, jsonSchema, toolTrajectory, completedWithin (default: all)',
      collect,
    )
    .option('--judge <model-id>', 'add an LLM judge scorer on this model (needs --rubric)')
    .option('--rubric <text>', 'what a good answer is, for --judge')
    .option('-c, --concurrency <n>', 'runs at once', positiveInteger, 4)
    .option(
      '--queue <redis-url>',
      'run the cases on `bridle worker`s through this Redis (the workers and this command share --store)',
    )
    .option(
      '--queue-prefix <name>',
      'with --queue: the deployment key prefix (default: $BRIDLE_QUEUE_PREFIX, else bridle)',
    )
    .option('--from-runs <filter>', 'cases from recorded runs: last:N, session:<id>, run:<id>[,<id>...], eval:<evalId>')
    .option('--replay', 'with --from-runs: re-run each recorded run offline against its recorded model responses')
    .option('--fail-under <share>', 'least pass rate of every variant and scorer, 0..1 (default 1)', share)
    .option('-o, --out <file>', 'write the result as JSON (an unfinished one there is resumed)')
    .option('--eval-id <id>', 'the eval id (default: new, or the unfinished one in --out); give one to resume it')
    .option('-w, --workspace <dir>', 'folder the agent may read and edit (adds the coding skill)')
    .option('--max-steps <n>', 'most model calls per run (default 10)', positiveInteger)
    .option('--max-tool-calls <n>', 'most tool calls per run', nonNegativeInteger)
    .option('--timeout <duration>', 'deadline per run: 30s, 500ms, 2m or seconds', duration)
    .option('--max-cost <usd>', 'budget per run in US dollars', dollars)
    .option('--system <text>', 'system prompt (skills add their sections after it)')
    .option('-y, --yes', 'approve every tool call that needs approval (without it such calls are denied)')
    .option('--store <url>', STORE_FLAG_HELP);
  addProjectFlags(command)
    .addHelpText('after', HELP)
    .action(async (dataset: string | undefined, flags: EvalFlags) => {
      context.setExitCode(await (await import('../actions/eval-action')).evalAction(context, dataset, flags));
    });
  command.addCommand(
    new Command('compare')
      .description('Compare two eval results (--out files): which cases got better or worse, and why')
      .argument('<a>', 'the earlier result (JSON)')
      .argument('<b>', 'the later result (JSON)')
      .option('--json', 'print the comparison as JSON')
      .addHelpText('after', '\nExit codes: 0 no case got worse, 1 a case got worse, 2 usage error or unreadable file.')
      .action(async (a: string, b: string, flags: { json?: boolean }) => {
        context.setExitCode(
          await (await import('../actions/eval-compare-action')).evalCompareAction(context, a, b, flags),
        );
      }),
  );
  return command;
}
