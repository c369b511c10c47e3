import { useEffect, useRef, useState } from 'preact/hooks';
import { getJson, type SessionRow, streamChat } from './api';
import { formatTime, shortId } from './format';
import { Markdown } from './markdown';
import { StatusBadge } from './status-badge';

interface Turn {
  prompt: string;
  /** The answer so far (streamed text of the current step, then the run's answer). */
  text: string;
  runId?: string;
  status?: string;
  error?: string;
}

/**
 * Sessions, and a prompt box that continues one (or starts a new one). Enter sends, Shift+Enter breaks the
 * line; the answer streams in as the model writes it and is shown as Markdown.
 */
export function ChatPanel({ onError }: { onError: (error: unknown) => void }) {
  const [sessions, setSessions] = useState<SessionRow[]>([]);
  const [sessionId, setSessionId] = useState<string | undefined>();
  const [prompt, setPrompt] = useState('');
  const [busy, setBusy] = useState(false);
  const [turns, setTurns] = useState<Turn[]>([]);
  const box = useRef<HTMLTextAreaElement>(null);

  useEffect(() => {
    getJson<{ sessions: SessionRow[] }>('/api/sessions?limit=50').then((body) => setSessions(body.sessions), onError);
  }, [onError, turns.length]);

  const update = (change: Partial<Turn>) =>
    setTurns((current) => [...current.slice(0, -1), { ...(current.at(-1) as Turn), ...change }]);

  async function send() {
    const text = prompt;
    if (!text.trim() || busy) return;
    setBusy(true);
    setPrompt('');
    setTurns((current) => [...current, { prompt: text, text: '' }]);
    let streamed = '';
    try {
      // The stream sends text deltas, tool calls, errors and run_end (with the session id), not run_start.
      let step: number | undefined;
      await streamChat({ prompt: text, ...(sessionId ? { sessionId } : {}) }, (event) => {
        if (event.parentRunId !== undefined) return;
        if (event.type === 'text_delta') {
          if (event.step !== step) streamed = '';
          step = event.step;
          streamed += event.text ?? '';
          update({ text: streamed, runId: event.runId });
        } else if (event.type === 'run_end') {
          if (event.sessionId) setSessionId(event.sessionId);
          update({
            runId: event.runId,
            status: event.status ?? 'completed',
            text: event.answer ?? streamed,
            ...(event.error ? { error: event.error } : {}),
          });
        } else {
          update({ runId: event.runId });
        }
      });
    } catch (error) {
      update({ error: error instanceof Error ? error.message : String(error) });
      onError(error);
    } finally {
      setBusy(false);
      box.current?.focus();
    }
  }

  return (
    <section class="chat">
      <h2>Chat</h2>
      <label>
        Session{' '}
        <select
          value={sessionId ?? ''}
          onChange={(event) => {
            const value = (event.target as HTMLSelectElement).value;
            setSessionId(value || undefined);
            setTurns([]);
          }}
        >
          <option value="">new session</option>
          {sessions.map((session) => (
            <option value={session.id} key={session.id}>
              {shortId(session.id)} · {formatTime(session.updatedAt)}
            </option>
          ))}
        </select>
      </label>
      <ol class="turns" aria-live="polite">
        {turns.map((turn, index) => (
          <li key={index}>
            <div class="turn-prompt">{turn.prompt}</div>
            <div class="turn-answer">
              {turn.text ? <Markdown text={turn.text} /> : !turn.error && <span class="muted">…</span>}
              {turn.error && <p class="error">{turn.error}</p>}
              {turn.runId && (
                <a href={`#/runs/${turn.runId}`} class="turn-run">
                  {turn.status ? <StatusBadge status={turn.status} /> : 'running'} ·{' '}
                  <span class="mono">{shortId(turn.runId)}</span>
                </a>
              )}
            </div>
          </li>
        ))}
      </ol>
      <form
        class="chat-form"
        onSubmit={(event) => {
          event.preventDefault();
          void send();
        }}
      >
        <label class="visually-hidden" for="chat-prompt">
          Prompt
        </label>
        <textarea
          id="chat-prompt"
          ref={box}
          value={prompt}
          onInput={(event) => setPrompt((event.target as HTMLTextAreaElement).value)}
          onKeyDown={(event) => {
            // Enter sends; Shift+Enter (and Enter while an input method composes) breaks the line.
            if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
              event.preventDefault();
              void send();
            }
          }}
          placeholder="Ask the agent… (Enter sends, Shift+Enter for a new line)"
          rows={3}
        />
        <button type="submit" disabled={busy}>
          {busy ? 'Running…' : 'Send'}
        </button>
      </form>
    </section>
  );
}
