import type { InspectorEvent, RunDetail } from './api';
import { formatCost, formatDuration, formatTime, formatTokens, shortModel } from './format';

/** The run's numbers, and its manifest and owner when the server has them (third release). */
export function RunFacts({ detail }: { detail: RunDetail }) {
  const start = detail.events.find((event: InspectorEvent) => event.type === 'run_start');
  const manifest = start?.manifest;
  const cancelledBy = detail.events.findLast(
    (event: InspectorEvent) => event.type === 'run_end' && event.parentRunId === undefined,
  )?.cancelledBy;
  return (
    <dl class="facts">
      <Fact term="model" value={<span title={detail.model}>{shortModel(detail.model)}</span>} />
      <Fact term="started" value={formatTime(detail.createdAt)} />
      <Fact term="duration" value={formatDuration(detail.durationMs)} />
      <Fact term="steps" value={detail.steps ?? '–'} />
      <Fact term="tool calls" value={detail.toolCalls ?? '–'} />
      <Fact term="tokens" value={formatTokens(detail.usage)} />
      <Fact term="cost" value={formatCost(detail.usage?.costUsd)} />
      {detail.sessionId && (
        <Fact
          term="session"
          value={
            <a href={`#/sessions/${detail.sessionId}`} class="mono">
              {detail.sessionId.slice(0, 8)}
            </a>
          }
        />
      )}
      {cancelledBy && <Fact term="cancelled by" value={<span class="mono">{cancelledBy}</span>} />}
      {detail.owner && <Fact term="owner" value={<span class="mono">{detail.owner}</span>} />}
      {detail.leaseUntil && <Fact term="lease until" value={formatTime(detail.leaseUntil)} />}
      {manifest?.tools && <Fact term="tools" value={manifest.tools.map((tool) => tool.name).join(', ') || '–'} />}
      {manifest?.skills && <Fact term="skills" value={manifest.skills.join(', ') || '–'} />}
      {manifest?.workspace && <Fact term="workspace" value={<span class="mono">{manifest.workspace}</span>} />}
      {manifest?.mcpServers && <Fact term="MCP servers" value={manifest.mcpServers.join(', ') || '–'} />}
    </dl>
  );
}

function Fact({ term, value }: { term: string; value: unknown }) {
  return (
    <div class="fact">
      <dt>{term}</dt>
      <dd>{value as string}</dd>
    </div>
  );
}
