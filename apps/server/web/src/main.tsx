import { render } from 'preact';
import { useCallback, useEffect, useState } from 'preact/hooks';
import { ApiError, token } from './api';
import { ChatPanel } from './chat-panel';
import { ComparePage } from './compare-page';
import { EvalPage } from './eval-page';
import { loadMarkdown } from './markdown';
import { OverviewPage } from './overview-page';
import { prefetchRun } from './run-prefetch';
import { RunView } from './run-view';
import { RunsList } from './runs-list';
import { SessionPage, SessionsPage } from './sessions-page';
import './styles.css';
import { WaitingCount } from './waiting-count';

function useRoute(): string {
  const [hash, setHash] = useState(location.hash);
  useEffect(() => {
    const onChange = () => setHash(location.hash);
    addEventListener('hashchange', onChange);
    return () => removeEventListener('hashchange', onChange);
  }, []);
  return hash;
}

/** Asks for the API token once per tab (kept in sessionStorage, never in the URL or a cookie). */
function TokenPrompt({ message, onSaved }: { message: string; onSaved: () => void }) {
  const [value, setValue] = useState('');
  return (
    <form
      class="token"
      onSubmit={(event) => {
        event.preventDefault();
        token.set(value.trim());
        onSaved();
      }}
    >
      <p>{message}</p>
      <input
        type="password"
        autocomplete="off"
        placeholder="BRIDLE_API_TOKEN"
        value={value}
        onInput={(event) => setValue((event.target as HTMLInputElement).value)}
      />
      <button type="submit">Use token</button>
    </form>
  );
}

function App() {
  const route = useRoute();
  const [error, setError] = useState<string | undefined>();
  const [needToken, setNeedToken] = useState<string | undefined>();
  const [generation, setGeneration] = useState(0);
  const onError = useCallback((cause: unknown) => {
    if (cause instanceof ApiError && cause.status === 401) {
      setNeedToken(
        token.get() ? 'That token was refused: enter the server’s API token.' : 'This server needs its API token.',
      );
      token.clear();
      return;
    }
    setError(cause instanceof Error ? cause.message : String(cause));
  }, []);
  // Run ids may hold dots and colons (an eval's runs are eval.<id>.<variant>.<case>).
  const runMatch = /^#\/runs\/([\w.:-]+)$/.exec(route);
  const compareMatch = /^#\/compare\/([\w.:-]+)(?:\/([\w.:-]+))?$/.exec(route);
  const sessionMatch = /^#\/sessions\/([\w.:-]+)$/.exec(route);
  const page = (() => {
    if (needToken) return undefined;
    if (runMatch?.[1]) return <RunView key={`${runMatch[1]}:${generation}`} runId={runMatch[1]} onError={onError} />;
    if (compareMatch?.[1])
      return (
        <ComparePage
          key={generation}
          a={compareMatch[1]}
          {...(compareMatch[2] ? { b: compareMatch[2] } : {})}
          onError={onError}
        />
      );
    if (sessionMatch?.[1]) return <SessionPage key={generation} id={sessionMatch[1]} onError={onError} />;
    if (route === '#/sessions') return <SessionsPage key={generation} onError={onError} />;
    if (route === '#/overview') return <OverviewPage key={generation} onError={onError} />;
    if (route === '#/evals') return <EvalPage />;
    if (route === '#/chat') return <ChatPanel key={generation} onError={onError} />;
    if (route === '#/waiting')
      return <RunsList key={`waiting:${generation}`} initial={{ status: 'awaiting_approval' }} onError={onError} />;
    return <RunsList key={generation} onError={onError} />;
  })();
  return (
    <main>
      <header>
        <h1>
          <a href="#/">Bridle</a> <span class="muted">run console</span>
        </h1>
        <nav aria-label="Pages">
          <a href="#/">Runs</a> <a href="#/sessions">Sessions</a> <a href="#/overview">Overview</a>{' '}
          <a href="#/chat">Chat</a> <a href="#/evals">Evals</a>
        </nav>
        {!needToken && <WaitingCount generation={generation} />}
      </header>
      {error && (
        <p class="error" role="alert">
          {error}{' '}
          <button type="button" onClick={() => setError(undefined)}>
            dismiss
          </button>
        </p>
      )}
      {needToken ? (
        <TokenPrompt
          message={needToken}
          onSaved={() => {
            setNeedToken(undefined);
            setGeneration((count) => count + 1);
          }}
        />
      ) : (
        page
      )}
    </main>
  );
}

// Asked for now, the run and the Markdown renderer (its own chunk) arrive while the page starts.
prefetchRun(location.hash);
loadMarkdown();
render(<App />, document.getElementById('app') as HTMLElement);
