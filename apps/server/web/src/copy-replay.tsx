import { useState } from 'preact/hooks';

/** "Copy as `bridle replay`": the command that re-runs this run offline, to the clipboard (or to select). */
export function CopyReplay({ runId }: { runId: string }) {
  const command = `bridle replay ${runId}`;
  const [copied, setCopied] = useState<string | undefined>();
  return (
    <span class="copy-replay">
      <code class="mono">{command}</code>{' '}
      <button
        type="button"
        onClick={() =>
          navigator.clipboard.writeText(command).then(
            () => setCopied('Copied.'),
            () => setCopied('The clipboard is not available here: select the command.'),
          )
        }
      >
        Copy as bridle replay
      </button>
      {copied && (
        <span class="muted" role="status">
          {' '}
          {copied}
        </span>
      )}
    </span>
  );
}
