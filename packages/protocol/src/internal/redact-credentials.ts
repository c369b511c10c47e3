/** A URL in free text: `scheme://` up to white space, a quote or a fragment. */
const URL_IN_TEXT = /\b[a-z][a-z0-9+.-]*:\/\/[^\s"'`<>#]+/gi;

function redactUrl(text: string): string {
  try {
    const url = new URL(text);
    url.username = '';
    url.password = '';
    url.search = '';
    // `new URL` lower-cases and normalises; when nothing was removed, keep the text as written.
    return url.href === text ? text : url.href;
  } catch {
    // Not parseable: cut anything that looks like user info and every query string.
    return text.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/?]*@/i, '$1').replace(/\?.*$/, '');
  }
}

/**
 * Removes credentials from every URL in `text`: user info (`user:password@`) and query strings (where
 * keys such as `?api-key=` travel). Model ids of the form `openai-compatible:<baseURL>#<model>` keep
 * their model name. Never throws.
 */
export function redactCredentials(text: string): string {
  // Every URL it redacts has a `://`: a text without one (a plain model id, on every journaled run) is as it is.
  if (!text.includes('://')) return text;
  return text.replace(URL_IN_TEXT, (match) => redactUrl(match));
}
