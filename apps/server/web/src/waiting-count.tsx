import { useEffect, useState } from 'preact/hooks';
import { api } from './api';

/** How many runs wait for approval, always in the header (refreshed every few seconds); links to them. */
export function WaitingCount({ generation }: { generation: number }) {
  const [count, setCount] = useState<number | undefined>();
  useEffect(() => {
    const controller = new AbortController();
    const load = () =>
      api.runs({ status: 'awaiting_approval', limit: 1 }, controller.signal).then(
        (page) => setCount(page.awaitingApproval),
        () => undefined, // the page's own requests say what failed
      );
    load();
    const timer = setInterval(load, 3000);
    return () => {
      clearInterval(timer);
      controller.abort();
    };
  }, [generation]);
  if (count === undefined) return null;
  return (
    <a href="#/waiting" class={`waiting${count > 0 ? ' waiting-some' : ''}`} aria-live="polite">
      {count === 200 ? '200+' : count} waiting for approval
    </a>
  );
}
