import { useState } from 'preact/hooks';
import type { RunFilters } from './api';

const STATUSES = [
  'running',
  'awaiting_approval',
  'completed',
  'model_error',
  'step_limit',
  'tool_limit',
  'timeout',
  'aborted',
  'budget_limit',
  'context_limit',
];
const WINDOWS: [string, number][] = [
  ['last hour', 3_600_000],
  ['last 24 hours', 86_400_000],
  ['last 7 days', 7 * 86_400_000],
];

/** The runs list's filters: search in titles, status, model, session, time; applied on submit (Enter). */
export function RunFiltersForm({
  filters,
  onChange,
}: {
  filters: RunFilters;
  onChange: (filters: RunFilters) => void;
}) {
  const [draft, setDraft] = useState<RunFilters & { window?: string }>(filters);
  const set = (key: keyof RunFilters | 'window') => (event: Event) =>
    setDraft({ ...draft, [key]: (event.target as HTMLInputElement).value });
  return (
    <form
      class="filters"
      aria-label="Filter runs"
      onSubmit={(event) => {
        event.preventDefault();
        const { window, ...rest } = draft;
        const span = WINDOWS.find(([label]) => label === window)?.[1];
        const next: RunFilters = Object.fromEntries(Object.entries(rest).filter(([, value]) => value !== ''));
        if (span !== undefined) next.since = new Date(Date.now() - span).toISOString();
        else delete next.since;
        onChange(next);
      }}
    >
      <label>
        Search{' '}
        <input type="search" name="search" value={draft.search ?? ''} onInput={set('search')} placeholder="in titles" />
      </label>
      <label>
        Status{' '}
        <select name="status" value={draft.status ?? ''} onChange={set('status')}>
          <option value="">any</option>
          {STATUSES.map((status) => (
            <option value={status} key={status}>
              {status.replaceAll('_', ' ')}
            </option>
          ))}
        </select>
      </label>
      <label>
        Model <input name="model" value={draft.model ?? ''} onInput={set('model')} placeholder="openai:gpt-4o-mini" />
      </label>
      <label>
        Session <input name="sessionId" value={draft.sessionId ?? ''} onInput={set('sessionId')} />
      </label>
      <label>
        Started{' '}
        <select name="window" value={draft.window ?? ''} onChange={set('window')}>
          <option value="">any time</option>
          {WINDOWS.map(([label]) => (
            <option value={label} key={label}>
              {label}
            </option>
          ))}
        </select>
      </label>
      <button type="submit">Apply</button>
    </form>
  );
}
