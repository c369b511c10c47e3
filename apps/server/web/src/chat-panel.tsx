import { useEffect, useState } from 'preact/hooks';
import { getJson, postJson, type SessionRow } from './api';
import { formatTime, shortId } from './format';

interface ChatAnswer {
  answer?: string;
  status: string;
  runId: string;
  sessionId: string;
  error?: string;
}

/** Sessions, and a prompt box that continues one (or starts a new one). */
export function ChatPanel({ onError }: { onError: (error: unknown) => void }) {
  const [sessions, setSessions] = useState<SessionRow[]>([]);
  const [sessionId, setSessionId] = useState<string | undefined>();
  const [prompt, setPrompt] = useState('');
  const [busy, setBusy] = useState(false);
  const [turns, setTurns] = useState<{ prompt: string; answer: ChatAnswer }[]>([]);

  useEffect(() => {
    getJson<{ sessions: SessionRow[] }>('/api/sessions?limit=50').then((body) => setSessions(body.sessions), onError);
  }, [onError, turns.length]);

  async function send(event: Event) {
    event.preventDefault();
    if (!prompt.trim() || busy) return;
    setBusy(true);
    try {
      const answer = await postJson<ChatAnswer>('/api/chat', { prompt, ...(sessionId ? { sessionId } : {}) });
      setSessionId(answer.sessionId);
      setTurns((current) => [...current, { prompt, answer }]);
      setPrompt('');
    } catch (error) {
      onError(error);
    } finally {
      setBusy(false);
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
      <ol class="turns">
        {turns.map((turn) => (
          <li key={turn.answer.runId}>
            <div class="turn-prompt">{turn.prompt}</div>
            <div class="turn-answer">
              {turn.answer.answer ?? turn.answer.error ?? ''}{' '}
              <a href={`#/runs/${turn.answer.runId}`} class="mono">
                {turn.answer.status} · {shortId(turn.answer.runId)}
              </a>
            </div>
          </li>
        ))}
      </ol>
      <form onSubmit={send}>
        <textarea
          value={prompt}
          onInput={(event) => setPrompt((event.target as HTMLTextAreaElement).value)}
          placeholder="Ask the agent…"
          rows={3}
        />
        <button type="submit" disabled={busy}>
          {busy ? 'Running…' : 'Send'}
        </button>
      </form>
    </section>
  );
}
