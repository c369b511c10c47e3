import type { EventSummary } from '@bridle/events';
import type { CliOutput } from './cli-io';
import type { Style } from './style';

/** Writes an `EventSummary` as a short report: runs, steps, tokens, then one row per tool. */
export function printSummary(out: CliOutput, style: Style, summary: EventSummary): void {
  out.write(
    `${summary.runIds.length} ${summary.runIds.length === 1 ? 'run' : 'runs'} · ${summary.steps} model calls · ${summary.toolCalls} tool calls · ` +
      `${summary.usage.inputTokens} in / ${summary.usage.outputTokens} out tokens · last status ${summary.status ?? 'none'}\n`,
  );
  const rows = Object.entries(summary.tools);
  if (rows.length === 0) return;
  const width = Math.max(4, ...rows.map(([name]) => name.length));
  out.write(style.dim(`${'tool'.padEnd(width)}  calls  errors  mean ms\n`));
  for (const [name, tool] of rows) {
    out.write(
      `${name.padEnd(width)}  ${String(tool.calls).padStart(5)}  ${String(tool.errors).padStart(6)}  ${tool.meanDurationMs.toFixed(1).padStart(7)}\n`,
    );
  }
}
