import { displayText } from '@bridle/models';
import type { RunSummary } from '@bridle/protocol';
import { redactCredentials } from '@bridle/protocol/internal';
import { shortTitle } from './session-title';
import type { Style } from './style';

/**
 * One run as `bridle runs` and chat's `/runs` show it: id, status (padded to `width`, coloured), model, last
 * update, title (shortened), and a running run's owner and lease.
 */
export function formatRunLine(run: RunSummary, style: Style, width = run.status.length): string {
  const status = run.status.padEnd(width);
  const colour =
    run.status === 'completed'
      ? style.green
      : run.status === 'awaiting_approval'
        ? style.yellow
        : run.status === 'running'
          ? style.cyan
          : style.red;
  // A running run's owner and lease: past its lease end, the run is an orphan that `bridle serve` resumes.
  const owner =
    run.owner === undefined ? '' : `  ${style.dim(`owner ${displayText(run.owner)} until ${run.leaseUntil ?? '?'}`)}`;
  const title = run.title === undefined ? '' : `  ${shortTitle(run.title)}`;
  return `${run.runId}  ${colour(status)}  ${displayText(redactCredentials(run.model ?? '-'))}  ${style.dim(run.updatedAt)}${title}${owner}`;
}
