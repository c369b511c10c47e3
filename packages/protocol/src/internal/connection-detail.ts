/** The URL without credentials: user info and the query string (which may hold a key) are removed. */
export function displayURL(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.username = '';
    parsed.password = '';
    parsed.search = '';
    parsed.hash = '';
    return parsed.toString();
  } catch {
    return '(unreadable URL)';
  }
}

/** Text with credentials removed from any URL in it: user info and query strings. */
function scrubURLs(text: string): string {
  return text.replace(/\b(https?:\/\/)[^/\s@]*@/gi, '$1').replace(/\b(https?:\/\/[^\s?#]*)\?[^\s)]*/gi, '$1');
}

/** The innermost cause's message of an error chain (e.g. `connect ECONNREFUSED 127.0.0.1:1`), if it says more. */
function rootCause(error: unknown): string | undefined {
  let current: unknown = (error as { cause?: unknown } | null)?.cause;
  let message: string | undefined;
  for (let depth = 0; current instanceof Error && depth < 4; depth++) {
    if (current.message) message = current.message;
    current = current.cause;
  }
  return message;
}

/**
 * The detail of a connection failure: the SDK's words, the URL it tried (without credentials) and the root cause,
 * e.g. `Connection error (http://127.0.0.1:1/v1/messages: connect ECONNREFUSED 127.0.0.1:1)`. URLs in the
 * cause's words lose their credentials too.
 */
export function connectionDetail(error: Error, url: string): string {
  const cause = rootCause(error);
  const message = error.message.replace(/[.\s]+$/, '');
  const because = cause && cause !== error.message ? `: ${scrubURLs(cause).replace(/[.\s]+$/, '')}` : '';
  return `${scrubURLs(message)} (${displayURL(url)}${because})`;
}
