import { render } from 'preact';
import { useCallback, useEffect, useState } from 'preact/hooks';
import { ApiError, token } from './api';
import { ChatPanel } from './chat-panel';
import { RunView } from './run-view';
import { RunsList } from './runs-list';
import './styles.css';

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
  const runMatch = /^#\/runs\/([\w-]+)$/.exec(route);
  return (
    <main>
      <header>
        <h1>
          <a href="#/">Bridle</a> <span class="muted">run inspector</span>
        </h1>
        <nav>
          <a href="#/">Runs</a> <a href="#/chat">Chat</a>
        </nav>
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
      ) : runMatch?.[1] ? (
        <RunView key={`${runMatch[1]}:${generation}`} runId={runMatch[1]} onError={onError} />
      ) : route === '#/chat' ? (
        <ChatPanel key={generation} onError={onError} />
      ) : (
        <RunsList key={generation} onError={onError} />
      )}
    </main>
  );
}

render(<App />, document.getElementById('app') as HTMLElement);
