import { useEffect, useState } from 'preact/hooks';
import { api, type RunRow, type SessionDetail, type SessionRow } from './api';
import { formatCost, formatTime, shortId } from './format';
import { Markdown } from './markdown';
import { StatusBadge } from './status-badge';

/** The sessions, newest first. */
export function SessionsPage({ onError }: { onError: (error: unknown) => void }) {
  const [sessions, setSessions] = useState<SessionRow[] | undefined>();
  useEffect(() => {
    const controller = new AbortController();
    api.sessions(controller.signal).then(
      (body) => setSessions(body.sessions),
      (error) => controller.signal.aborted || onError(error),
    );
    return () => controller.abort();
  }, [onError]);
  if (!sessions) return <p class="muted">Loading sessions…</p>;
  return (
    <section class="sessions">
      <h2>Sessions</h2>
      {sessions.length === 0 ? (
        <p class="muted">No sessions yet.</p>
      ) : (
        <ul>
          {sessions.map((session) => (
            <li key={session.id} data-session-id={session.id}>
              <a href={`#/sessions/${session.id}`} class="mono">
                {shortId(session.id)}
              </a>{' '}
              {session.messageCount ?? 0} messages · {formatTime(session.updatedAt)}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/** A session as the conversation it is (Markdown), with its runs. */
export function SessionPage({ id, onError }: { id: string; onError: (error: unknown) => void }) {
  const [session, setSession] = useState<SessionDetail | undefined>();
  const [runs, setRuns] = useState<RunRow[]>([]);
  useEffect(() => {
    const controller = new AbortController();
    Promise.all([api.session(id, controller.signal), api.runs({ sessionId: id, limit: 200 }, controller.signal)]).then(
      ([detail, page]) => {
        setSession(detail);
        setRuns(page.runs);
      },
      (error) => controller.signal.aborted || onError(error),
    );
    return () => controller.abort();
  }, [id, onError]);
  if (!session) return <p class="muted">Loading session {shortId(id)}…</p>;
  return (
    <section class="session">
      <h2>
        Session <span class="mono">{shortId(id)}</span>
      </h2>
      <ol class="conversation">
        {session.messages
          .filter((message) => message.role === 'user' || (message.role === 'assistant' && message.content))
          .map((message, index) => (
            <li key={index} class={`message message-${message.role}`}>
              <span class="message-role">{message.role === 'user' ? 'You' : 'Agent'}</span>
              <Markdown text={message.content} />
            </li>
          ))}
      </ol>
      <h3>Runs of this session</h3>
      <ul class="session-runs">
        {[...runs].reverse().map((run) => (
          <li key={run.runId}>
            <a href={`#/runs/${run.runId}`} class="mono">
              {shortId(run.runId)}
            </a>{' '}
            {run.title ?? ''} <StatusBadge status={run.status} /> {formatCost(run.usage?.costUsd)}
          </li>
        ))}
      </ul>
    </section>
  );
}
